plan p
dim R
axis r: R
input X[r]: f32
Y[r] = sum(r: X)
output Y: f32
schedule {
  tile r = 99999999999
  warps = 2147483648
  splits = 99999999999
  tune {
    warps = {4, 99999999999}
  }
}

#!/usr/bin/env python3
"""hf_check.py - fusegen's gqa plan as the attention of a Hugging Face
transformers Llama model, beside PyTorch's SDPA on the same model.

A small Llama (random weights from a fixed seed, built from a config: no
download) runs on random token ids twice, once with attn_implementation
"sdpa" and once with "fusegen", registered here through
transformers.AttentionInterface and calling fusegen_attn.gqa (ctypes, the
installed libraries).  Printed: the versions, device and date; the largest
absolute and relative differences of the logits and how many argmax tokens
agree; the same for the sequence run again in chunks through the KV cache
(queries fewer than keys: fusegen's bottom-right causal mask); the largest
difference of each attention call against a float32 evaluation of the same
inputs; a padded batch, which fusegen must refuse; and a control, the model
with non-causal attention, which must differ by far more than the tolerance
(else the comparison could not see a wrong mask).

Exit status 0 when the relative error of the logits, ||fusegen - sdpa|| /
||sdpa|| over all logits, is within --tol for the full and the chunked
runs, the padded batch is refused and the control is outside --tol; 1
otherwise; 2 when it cannot run (no GPU, no library).

Tolerance (default 2e-2 for bf16, 5e-3 for fp16, 1e-4 for float32 on the
CPU): both runs compute in the model's dtype, so they differ by rounding:
bf16 keeps 8 significant bits (relative 2^-9 ~ 2e-3 per rounding), SDPA's
flash kernel and fusegen round P and O at different points and accumulate
in different orders, and two layers and the LM head carry the difference
on; a few such roundings give a relative error of a few 1e-3, and 2e-2
leaves room for them while a wrong mask or head mapping (the control) is
far beyond it.  fp16 keeps 11 bits: 8 times finer; float32 24.

Needs a GPU (or --device cpu), PyTorch, transformers (5.x; 4.5x should do)
and libfusegen_py.so (examples/python/README.md).  Not part of make check.
"""
import argparse
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    p.add_argument("--dtype", choices=["bf16", "fp16", "f32"], default=None,
                   help="model dtype (default bf16 on cuda, f32 on cpu)")
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--seq", type=int, default=301, help="tokens per sequence (odd: partial tiles)")
    p.add_argument("--chunks", default="200,100,1",
                   help="chunk lengths of the cached run, summing to --seq")
    p.add_argument("--hidden", type=int, default=512)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--vocab", type=int, default=1000)
    p.add_argument("--init-std", type=float, default=0.05,
                   help="weight init std (transformers' default 0.02 gives scores so small that "
                        "attention is nearly uniform and a wrong mask would hardly show)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tol", type=float, default=None, help="relative error allowed (see the doc)")
    return p.parse_args()


class Refused(ValueError):
    """A mask or setting the gqa plan cannot express."""


def check_mask(mask, M, N):
    """Accept the attention mask transformers passes only when it is the
    gqa plan's mask: query m sees key n iff n <= m + N - M, in every batch
    entry (a padded sequence, a packed batch, a sliding window are not)."""
    import torch
    if mask is None:
        return
    if not isinstance(mask, torch.Tensor) or mask.dim() != 4:
        raise Refused(f"fusegen: attention mask of type {type(mask).__name__} not understood")
    if mask.shape[-1] > N:  # older transformers pass a longer mask for static caches
        mask = mask[..., :N]
    if mask.shape[-2] != M or mask.shape[-1] != N:
        raise Refused(f"fusegen: mask shape {tuple(mask.shape)} for M={M}, N={N}")
    if mask.dtype == torch.bool:
        seen = mask
    else:  # additive: 0 where seen, a large negative value where not; anything else is a bias
        seen = mask == 0
        if not bool(((mask == 0) | (mask <= torch.finfo(mask.dtype).min / 2)).all()):
            raise Refused("fusegen: the additive mask has values other than 0 and -inf (a bias)")
    m = torch.arange(M, device=mask.device).view(M, 1)
    n = torch.arange(N, device=mask.device).view(1, N)
    want = (n <= m + N - M).expand(seen.shape)
    # One device-to-host sync per layer: fine for a check, where being
    # sure the kernel's fixed mask is the one asked for matters more.
    if not torch.equal(seen, want):
        raise Refused("fusegen: the attention mask is not the bottom-right causal mask of "
                      "plan gqa (padding or another pattern): use sdpa for this batch")


def make_fusegen_attention(stats):
    """The function registered as "fusegen": the AttentionInterface
    signature of transformers 5.x (module, query, key, value,
    attention_mask, dropout, scaling, **kwargs), query [B, Hq, M, D] and
    key/value [B, Hkv, N, D], returning (output [B, M, Hq, D], None)."""
    import torch
    import fusegen_attn

    def fusegen_attention(module, query, key, value, attention_mask, dropout=0.0, scaling=None, **kwargs):
        if dropout and module.training:
            raise Refused("fusegen: no attention dropout (training)")
        if kwargs.get("output_attentions"):
            raise Refused("fusegen: does not return attention weights")
        is_causal = kwargs.get("is_causal")
        if is_causal is None:
            is_causal = getattr(module, "is_causal", True)
        M, N = query.shape[2], key.shape[2]
        if not is_causal and M > 1:  # with one query, causal and not are the same
            raise Refused("fusegen: the gqa plan is causal; this layer is not")
        check_mask(attention_mask, M, N)
        if kwargs.get("sliding_window") is not None:
            raise Refused("fusegen: no sliding window in plan gqa")
        B, Hq, _, D = query.shape
        # The output in the layout transformers wants back, [B, M, Hq, D]
        # contiguous, written by the kernel through a transposed view: no
        # copy on the way in (query/key/value are transposed views already)
        # nor on the way out.
        out = torch.empty((B, M, Hq, D), dtype=query.dtype, device=query.device)
        fusegen_attn.gqa(query, key, value, scale=scaling, out=out.transpose(1, 2))
        stats["calls"] += 1
        if stats.get("reference"):
            ro, _ = fusegen_attn.reference(query, key, value, scaling)
            err = (out.transpose(1, 2).float() - ro).abs().max().item()
            stats["attn_err"] = max(stats.get("attn_err", 0.0), err)
            stats["attn_max"] = max(stats.get("attn_max", 0.0), ro.abs().max().item())
        return out, None

    return fusegen_attention


def noncausal_attention(module, query, key, value, attention_mask, dropout=0.0, scaling=None, **kwargs):
    """The control: attention without the causal mask (deliberately wrong),
    evaluated naively in float32, to show the comparison sees a mask error."""
    import torch
    G = query.shape[1] // key.shape[1]
    scaling = query.shape[-1] ** -0.5 if scaling is None else scaling
    key = key.float().repeat_interleave(G, dim=1)
    value = value.float().repeat_interleave(G, dim=1)
    p = torch.softmax(torch.matmul(query.float(), key.transpose(-1, -2)) * scaling, dim=-1)
    return torch.matmul(p, value).to(query.dtype).transpose(1, 2).contiguous(), None


def register(stats):
    """Register "fusegen" (and the control) with transformers.  The mask
    function matters: without one registered under the same name,
    transformers builds no mask at all for a custom attention and passes
    None, so padding would go unseen.  sdpa_mask gives None for a plain
    causal batch with as many queries as keys (or one query), and a
    boolean [B, 1, M, N] mask otherwise, which check_mask reads."""
    import transformers
    from transformers import AttentionInterface
    try:
        from transformers import AttentionMaskInterface
    except ImportError:
        from transformers.masking_utils import AttentionMaskInterface
    from transformers.masking_utils import sdpa_mask
    AttentionInterface.register("fusegen", make_fusegen_attention(stats))
    AttentionMaskInterface.register("fusegen", sdpa_mask)
    AttentionInterface.register("fusegen_control_noncausal", noncausal_attention)
    return transformers


def use_attention(model, name):
    """Switch the model's attention: set_attn_implementation where the
    model has it (transformers >= 4.5x; it checks the name is registered),
    else the config attribute the attention layers read.  Read back: a
    model that cannot switch only logs a warning in 5.x."""
    if hasattr(model, "set_attn_implementation"):
        model.set_attn_implementation(name)
    if getattr(model.config, "_attn_implementation", None) != name:
        model.config._attn_implementation = name
    got = model.config._attn_implementation
    if got != name:
        raise SystemExit(f"hf_check: attention implementation is {got!r}, not {name!r}")


def compare(name, got, ref, tol, control=False):
    """Print and judge one comparison of logits: max abs, max abs relative
    to the largest reference logit, the gated ||got - ref|| / ||ref||, and
    the argmax agreement (disagreements with the reference's top-2 gap,
    which shows whether they are near-ties).  Returns whether the relative
    error is within tol; for the control, being outside it is the pass."""
    import torch
    got, ref = got.float(), ref.float()
    d = got - ref
    max_abs = d.abs().max().item()
    max_rel = max_abs / ref.abs().max().item()
    rel = (d.norm() / ref.norm()).item()
    a_got, a_ref = got.argmax(-1), ref.argmax(-1)
    agree = (a_got == a_ref)
    n_agree, n_all = int(agree.sum().item()), agree.numel()
    ok = rel <= tol
    if control:
        verdict = "outside it: ok" if not ok else "WITHIN it: FAIL"
    else:
        verdict = "ok" if ok else "FAIL"
    print(f"{name}: max |diff| {max_abs:.4g}, max |diff| / max |sdpa| {max_rel:.3g}, "
          f"||diff|| / ||sdpa|| {rel:.3g} (tol {tol:g}) {verdict}; "
          f"argmax agrees at {n_agree}/{n_all} positions")
    if n_agree < n_all:
        top2 = ref.topk(2, dim=-1).values
        gap = (top2[..., 0] - top2[..., 1])[~agree]
        print(f"  where argmax differs, sdpa's top-2 gap: max {gap.max().item():.3g} "
              f"(a near-tie when about the size of max |diff|)")
    return ok, rel


def main():
    a = parse_args()
    try:
        import torch
    except ImportError as e:
        print(f"hf_check: {e}")
        return 2
    stats = {"calls": 0}
    try:
        transformers = register(stats)
    except ImportError as e:
        print(f"hf_check: transformers with AttentionInterface is needed: {e}")
        return 2
    import fusegen_attn

    dtype_name = a.dtype or ("bf16" if a.device == "cuda" else "f32")
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "f32": torch.float32}[dtype_name]
    tol = a.tol if a.tol is not None else {"bf16": 2e-2, "fp16": 5e-3, "f32": 1e-4}[dtype_name]
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    print(f"hf_check: {now}; python {sys.version.split()[0]}, torch {torch.__version__} "
          f"(CUDA {torch.version.cuda}), transformers {transformers.__version__}")
    if a.device == "cuda":
        if not torch.cuda.is_available():
            print("hf_check: no CUDA device visible to torch")
            return 2
        print(f"device: {torch.cuda.get_device_name()} "
              f"(compute capability {'.'.join(map(str, torch.cuda.get_device_capability()))})")
    else:
        print("device: cpu (fg_gqa_cpu)")
    try:
        fusegen_attn.load()
    except (OSError, ImportError) as e:
        print(f"hf_check: {e}")
        return 2
    print(f"library: {fusegen_attn.library_path()} (CUDA entry: {fusegen_attn.has_cuda()})")

    from transformers import LlamaConfig, LlamaForCausalLM
    config = LlamaConfig(
        vocab_size=a.vocab, hidden_size=a.hidden, intermediate_size=2 * a.hidden,
        num_hidden_layers=a.layers, num_attention_heads=a.heads, num_key_value_heads=a.kv_heads,
        head_dim=a.head_dim, max_position_embeddings=max(1024, a.seq), initializer_range=a.init_std,
        attention_dropout=0.0, tie_word_embeddings=False)
    torch.manual_seed(a.seed)
    # Initialised in float32 from the seed, then converted: one set of
    # weights for both attentions.  The attention is chosen through the
    # model below (use_attention), the same way in 4.x and 5.x, rather than
    # by a config keyword.
    model = LlamaForCausalLM(config).to(device=a.device, dtype=dtype).eval()
    # Drawn on the CPU from their own generator: the same ids on any device.
    ids = torch.randint(0, a.vocab, (a.batch, a.seq),
                        generator=torch.Generator().manual_seed(a.seed + 1)).to(a.device)
    print(f"model: Llama, {a.layers} layers, hidden {a.hidden}, {a.heads} query heads, "
          f"{a.kv_heads} kv heads, head dim {a.head_dim}, vocab {a.vocab}, init std {a.init_std}, "
          f"{dtype_name}, seed {a.seed}; input {a.batch} x {a.seq} random token ids")

    failed = 0
    with torch.inference_mode():
        use_attention(model, "sdpa")
        ref = model(input_ids=ids, use_cache=False).logits

        # 1. The whole sequence at once: M = N, no mask (transformers passes
        #    None for a plain causal batch), every attention call checked
        #    against a float32 evaluation of its own inputs.
        use_attention(model, "fusegen")
        stats.update(calls=0, reference=True)
        got = model(input_ids=ids, use_cache=False).logits
        stats["reference"] = False
        if stats["calls"] != a.layers:
            print(f"FAIL: fusegen was called {stats['calls']} times for {a.layers} layers")
            failed += 1
        print(f"attention calls: {stats['calls']}; largest |fusegen - float32 evaluation| over "
              f"them {stats.get('attn_err', float('nan')):.3g} "
              f"(outputs up to {stats.get('attn_max', float('nan')):.3g}); "
              f"last kernel: {fusegen_attn.last_config() if a.device == 'cuda' else 'cpu'}")
        ok, _ = compare("full sequence, fusegen vs sdpa", got, ref, tol)
        failed += not ok

        # 2. The same tokens in chunks through the KV cache: later chunks
        #    have M < N, and transformers passes a mask, the bottom-right
        #    causal one, which check_mask accepts.
        chunks = [int(c) for c in a.chunks.split(",") if c]
        if sum(chunks) != a.seq:
            print(f"hf_check: --chunks {a.chunks} does not sum to --seq {a.seq}")
            return 2
        stats["calls"] = 0
        past, parts, start = None, [], 0
        for c in chunks:
            o = model(input_ids=ids[:, start:start + c], past_key_values=past, use_cache=True)
            past, start = o.past_key_values, start + c
            parts.append(o.logits)
        ok, _ = compare(f"chunks {a.chunks} with KV cache, fusegen vs sdpa (whole sequence)",
                        torch.cat(parts, dim=1), ref, tol)
        failed += not ok
        if stats["calls"] != a.layers * len(chunks):
            print(f"FAIL: fusegen was called {stats['calls']} times for {a.layers * len(chunks)}")
            failed += 1

        # 3. Padding: the plan has no per-sequence key lengths, so a padded
        #    batch must be refused, not computed wrongly.
        pad = torch.ones_like(ids)
        pad[0, : a.seq // 3] = 0  # left padding in the first sequence
        try:
            model(input_ids=ids, attention_mask=pad, use_cache=False)
            print("FAIL: a padded batch was not refused")
            failed += 1
        except Refused as e:
            print(f"padded batch refused: ok ({e})")
        except Exception as e:  # refused, but not by check_mask: not what was meant
            print(f"FAIL: the padded batch raised {type(e).__name__}: {e}")
            failed += 1
        # and an all-ones attention_mask (no padding) is a plain causal
        # batch: accepted, and the same result
        same = model(input_ids=ids, attention_mask=torch.ones_like(ids), use_cache=False).logits
        ok, _ = compare("all-ones attention_mask, fusegen vs sdpa", same, ref, tol)
        failed += not ok

        # 4. The control: a wrong (non-causal) attention must be far outside
        #    the tolerance, or the comparison above proves little.
        use_attention(model, "fusegen_control_noncausal")
        bad = model(input_ids=ids, use_cache=False).logits
        ok, _ = compare("control, non-causal attention vs sdpa (must be outside the tolerance)",
                        bad, ref, tol, control=True)
        if ok:
            print("FAIL: the control is within the tolerance: the check cannot see a wrong mask")
            failed += 1
        use_attention(model, "sdpa")

    print(f"hf_check: {'FAILED' if failed else 'ok'} ({failed} failure(s))")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

m4_include([[[common/prelude.m4]]])m4_dnl
m4_dnl c/fused.m4 - the fused schedule as portable C: the same tiles, running
m4_dnl state, corrections, epilogue and split combine as the GPU kernels.
fg_c_file_header
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fg_header_name"
#include "fusegen_internal.h"

m4_include([[[c/prelude.m4]]])m4_dnl

/* Tiles of the schedule: fg_tile_rows rows of fg_row_axis, fg_tile_keys keys of fg_fused_axis. */
enum { TM_ = fg_tile_rows, TN_ = fg_tile_keys };
fg_c_mask_if([[[
/* Dims and scalar params, as the tile classification reads them. */
typedef struct dims_ {
fg_c_dims_fields[[[]]]m4_dnl
} dims_;

/* Which part of the tile [r0, r1) x [c0, c1) the mask lets through
 * (fg_c_mask_origin). */
static int tile_state_(const dims_ *x_, long r0, long r1, long c0, long c1)
{
fg_c_tile_state[[[]]]m4_dnl
}
fg_c_skip_if([[[
/* The keys [*lo, *hi) that rows [r0, r1) can see: the walk over the keys
 * starts and ends at the first and last tile that holds one of them. */
static void key_range_(const dims_ *x_, long r0, long r1, long *lo, long *hi)
{
    long c_lo, c_hi;
fg_c_key_range[[[]]]m4_dnl
    *lo = c_lo;
    *hi = c_hi;
}
]]])m4_dnl
]]])m4_dnl

fg_status fg_cpu_entry[[[]]](const fg_args_type *args)
{
fg_c_validate[[[]]]m4_dnl
    const long ntiles_ = (fg_c_keys_full + TN_ - 1) / TN_;
    (void)ntiles_;
    if (args->splits < 0)
        return fg_set_error(FG_ERR_PARAM, "fg_cpu_entry: splits is %d, must be 0 (the schedule's) or more",
                            args->splits);
    /* The CPU runs any split count: 1 is the rolling walk, more split the
     * keys into runs of whole tiles whose partial states are combined. */
    long splits_ = args->splits ? args->splits : (fg_c_default_splits);
    if (splits_ > ntiles_)
        splits_ = ntiles_; /* whole tiles per split */
    if (splits_ < 1)
        splits_ = 1;
fg_c_param_vectors[[[]]]m4_dnl
fg_c_mask_if([[[m4_dnl
    dims_ x_;
fg_c_dims_set[[[]]]m4_dnl
]]])m4_dnl
fg_c_buffers[[[]]]m4_dnl
    fg_status rc_ = FG_OK;
    if (fg_c_buffers_missing) {
        rc_ = fg_set_error(FG_ERR_NOMEM, "fg_cpu_entry: out of memory for the tile buffers");
        goto done_;
    }

fg_c_outer_loops[[[]]]m4_dnl
    for (long m0_ = 0; m0_ < fg_c_rows; m0_ += TM_) {
        const long rows_ = fg_c_rows - m0_ < TM_ ? fg_c_rows - m0_ : TM_;
        (void)rows_;
fg_c_row_setup[[[]]]m4_dnl
fg_c_prologue[[[]]]m4_dnl
fg_c_skip_if([[[m4_dnl
        /* the tiles that hold a key these rows can see */
        long klo_ = 0, khi_ = 0;
        key_range_(&x_, fg_c_mask_rows, &klo_, &khi_);
        const long tlo_ = klo_ / TN_, thi_ = khi_ > klo_ ? (khi_ + TN_ - 1) / TN_ : tlo_;
]]], [[[m4_dnl
        const long tlo_ = 0, thi_ = fg_c_ntiles;
]]])m4_dnl
        /* splits_ contiguous runs of whole tiles, each with its own state
         * (one run: the rolling walk) */
        for (long s_ = 0; s_ < splits_; s_++) {
            const long t0_ = tlo_ + s_ * (thi_ - tlo_) / splits_;
            const long t1_ = tlo_ + (s_ + 1) * (thi_ - tlo_) / splits_;
fg_c_running_init[[[]]]m4_dnl
            /* whether a tile of this run has added to the state: the
             * corrections apply from the next one on (before it, a max
             * holds its identity, and a ratio of it would not be a number) */
            int seen_ = 0;
            (void)seen_;
            for (long t_ = t0_; t_ < t1_; t_++) {
                const long n0_ = t_ * TN_;
                const long cols_ = fg_c_keys - n0_ < TN_ ? fg_c_keys - n0_ : TN_;
fg_c_mask_if([[[m4_dnl
                const int state_ = tile_state_(&x_, fg_c_mask_rows, n0_, n0_ + cols_);
fg_c_skip_if([[[m4_dnl
                if (state_ == 0)
                    continue; /* every element masked: the tile changes no state */
]]])m4_dnl
                const int full_ = state_ == 2; /* no element masked: no mask test */
                (void)full_;
]]])m4_dnl
fg_c_tile_body[[[]]]m4_dnl
                seen_ = 1;
            }
            if (splits_ > 1) {
fg_c_save_partials[[[]]]m4_dnl
                seen_part_[s_] = (unsigned char)seen_;
            }
        }
        if (splits_ > 1) {
            /* combine the splits' partial states */
fg_c_combine[[[]]]m4_dnl
        }
        /* epilogue: after the last tile */
fg_c_epilogue[[[]]]m4_dnl
fg_c_epilogue_pass_if([[[m4_dnl
        /* epilogue statements along fg_fused_axis: a second walk over the tiles */
        for (long t_ = 0; t_ < fg_c_ntiles; t_++) {
            const long n0_ = t_ * TN_;
            const long cols_ = fg_c_keys - n0_ < TN_ ? fg_c_keys - n0_ : TN_;
fg_c_mask_if([[[m4_dnl
            const int full_ = tile_state_(&x_, fg_c_mask_rows, n0_, n0_ + cols_) == 2;
            (void)full_;
]]])m4_dnl
fg_c_epilogue_tile[[[]]]m4_dnl
        }
]]])m4_dnl
    }

done_:
fg_c_free[[[]]]m4_dnl
    return rc_;
}

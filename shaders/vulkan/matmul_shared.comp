#version 450
/*
 * C[M][N] = A[M][K] * B[K][N], row-major — the GPU kernel: shared-memory
 * tiling. Same three precisions and buffer conventions as matmul.comp
 * (-DFF_FP32 / -DFF_FP16 / -DFF_INT8):
 *   fp32: fp32 in, fp32 accumulate, fp32 out
 *   fp16: fp16 in (16-bit storage), fp32 accumulate, fp16 out
 *   int8: int8 in (8-bit storage), int32 accumulate, int32 out
 *
 * One work-group of WG = (BM/TM) * (BN/TN) invocations computes a BM x BN
 * tile of C; each invocation a TM x TN block in registers (TM, TN multiples
 * of 4, at most 8). K is walked in slabs of BK:
 *
 *   - The A slab (BM x BK) and B slab (BK x BN) are read from global memory
 *     with 4-element vector loads (vec4 / f16vec4 / i8vec4): for B, 32
 *     neighbouring invocations read 32 neighbouring vectors of one row; for
 *     A, BK/4 neighbours cover one row's slab. Elements are converted to the
 *     accumulation type (fp32 / int32) on the way into shared memory, so
 *     shared memory and the inner loop need no 16- or 8-bit arithmetic
 *     (storageBuffer16/8BitAccess suffice, as in matmul.comp).
 *   - A is stored transposed, As[k][m], rows padded by one vec4: the
 *     transposing scalar stores of one warp spread over twice as many banks,
 *     and the inner loop reads A and B as aligned vec4 (128-bit LDS).
 *   - Double buffering: two slab buffers in shared memory. While the FMAs
 *     run on slab t, the global loads of slab t+1 are already in flight
 *     (registers), and are written to the other buffer afterwards; one
 *     barrier per slab.
 *   - Inner loop (BK unrolled): per k, TM/4 vec4 of A and TN/4 vec4 of B
 *     from shared memory, TM*TN FMAs. An invocation's rows and vec4 columns
 *     are interleaved with the work-group (row = i4*4*WY + ty*4 + ii,
 *     vec4 column = j4*WX + tx): neighbouring invocations read neighbouring
 *     vec4 of B (conflict-free) and the same vec4 of A (broadcast), and the
 *     stores of C are coalesced.
 *
 * Edges: loads outside A or B write zeros into the shared tiles (so the FMAs
 * need no checks), stores outside C are skipped — any M, N, K works.
 * ALIGNED (K and N multiples of 4) selects the vector loads and stores;
 * otherwise each element is loaded and stored on its own.
 *
 * All sizes are specialization constants; vk_pipeline.c picks the tiles per
 * device (NVIDIA, AMD, Intel, fallback) and checks them against the
 * shared-memory and work-group limits.
 */
#extension GL_EXT_control_flow_attributes : require
#if defined(FF_FP16)
#extension GL_EXT_shader_16bit_storage : require
#define TIN float16_t
#define TIN4 f16vec4
#define TACC float
#define TACC4 vec4
#define TOUT float16_t
#define TOUT4 f16vec4
#elif defined(FF_INT8)
#extension GL_EXT_shader_8bit_storage : require
#define TIN int8_t
#define TIN4 i8vec4
#define TACC int
#define TACC4 ivec4
#define TOUT int
#define TOUT4 ivec4
#else
#define TIN float
#define TIN4 vec4
#define TACC float
#define TACC4 vec4
#define TOUT float
#define TOUT4 vec4
#endif

layout(local_size_x_id = 8, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = 0) const uint M = 64;
layout(constant_id = 1) const uint N = 64;
layout(constant_id = 2) const uint K = 64;
layout(constant_id = 3) const uint BM = 64;   /* C tile rows per work-group */
layout(constant_id = 4) const uint BN = 64;   /* C tile columns per work-group */
layout(constant_id = 5) const uint BK = 8;    /* k-slab */
layout(constant_id = 6) const uint TM = 8;    /* rows per invocation (4 or 8) */
layout(constant_id = 7) const uint TN = 4;    /* columns per invocation (4 or 8) */
layout(constant_id = 8) const uint WG = 128;  /* = (BM/TM) * (BN/TN) */
layout(constant_id = 9) const bool ALIGNED = true;

#define MAX_T4 2   /* TM/4, TN/4 <= 2 */
#define MAX_LD 4   /* vec4 loads per invocation per slab, for A and for B */

const uint WX = BN / TN;
const uint WY = BM / TM;
const uint BM4 = BM / 4;
const uint BN4 = BN / 4;
const uint BK4 = BK / 4;
const uint AS_ROW = BM4 + 1;        /* vec4 per k of the transposed A tile (+1 pad) */
const uint AS_BUF = BK * AS_ROW;
const uint BS_BUF = BK * BN4;
const uint A_VECS = BM * BK4;       /* vec4 loads of one A slab */
const uint B_VECS = BK * BN4;       /* vec4 loads of one B slab */

shared TACC4 As[2 * AS_BUF];
shared TACC4 Bs[2 * BS_BUF];

layout(set = 0, binding = 0, std430) readonly buffer A4b { TIN4 a4[]; };
layout(set = 0, binding = 0, std430) readonly buffer A1b { TIN a1[]; };
layout(set = 0, binding = 1, std430) readonly buffer B4b { TIN4 b4[]; };
layout(set = 0, binding = 1, std430) readonly buffer B1b { TIN b1[]; };
layout(set = 0, binding = 2, std430) writeonly buffer C4b { TOUT4 c4[]; };
layout(set = 0, binding = 2, std430) writeonly buffer C1b { TOUT c1[]; };

/* A[row][k .. k+3], zeros outside the matrix */
TACC4 load_a(uint row, uint k)
{
    TACC4 v = TACC4(0);
    if (ALIGNED) {
        if (row < M && k < K)
            v = TACC4(a4[row * (K / 4) + k / 4]);
    } else {
        [[unroll]] for (uint c = 0; c < 4; c++)
            if (row < M && k + c < K)
                v[c] = TACC(a1[row * K + k + c]);
    }
    return v;
}

/* B[k][col .. col+3], zeros outside the matrix */
TACC4 load_b(uint k, uint col)
{
    TACC4 v = TACC4(0);
    if (ALIGNED) {
        if (k < K && col < N)
            v = TACC4(b4[k * (N / 4) + col / 4]);
    } else {
        [[unroll]] for (uint c = 0; c < 4; c++)
            if (k < K && col + c < N)
                v[c] = TACC(b1[k * N + col + c]);
    }
    return v;
}

void main()
{
    const uint tid = gl_LocalInvocationID.x;
    const uint tx = tid % WX, ty = tid / WX;
    const uint bm0 = gl_WorkGroupID.y * BM, bn0 = gl_WorkGroupID.x * BN;
    const uint nslabs = (K + BK - 1) / BK;

    TACC4 acc[MAX_T4 * 4][MAX_T4];
    [[unroll]] for (uint i = 0; i < TM; i++)
        [[unroll]] for (uint j = 0; j < TN / 4; j++)
            acc[i][j] = TACC4(0);

    /* slab 0 -> registers -> buffer 0 */
    TACC4 ra[MAX_LD], rb[MAX_LD];
    [[unroll]] for (uint i = 0; i < MAX_LD; i++) {
        uint l = tid + i * WG;
        if (l < A_VECS)
            ra[i] = load_a(bm0 + l / BK4, (l % BK4) * 4);
        if (l < B_VECS)
            rb[i] = load_b(l / BN4, bn0 + (l % BN4) * 4);
    }
    [[unroll]] for (uint i = 0; i < MAX_LD; i++) {
        uint l = tid + i * WG;
        if (l < A_VECS) {
            uint r = l / BK4, kq = (l % BK4) * 4;
            [[unroll]] for (uint c = 0; c < 4; c++)
                As[(kq + c) * AS_ROW + r / 4][r % 4] = ra[i][c];
        }
        if (l < B_VECS)
            Bs[l] = rb[i];
    }
    barrier();

    for (uint t = 0; t < nslabs; t++) {
        const uint cur = t & 1u;
        const bool more = t + 1 < nslabs;
        /* issue the global loads of the next slab before the FMAs */
        if (more) {
            const uint k0 = (t + 1) * BK;
            [[unroll]] for (uint i = 0; i < MAX_LD; i++) {
                uint l = tid + i * WG;
                if (l < A_VECS)
                    ra[i] = load_a(bm0 + l / BK4, k0 + (l % BK4) * 4);
                if (l < B_VECS)
                    rb[i] = load_b(k0 + l / BN4, bn0 + (l % BN4) * 4);
            }
        }

        const uint abase = cur * AS_BUF, bbase = cur * BS_BUF;
        [[unroll]] for (uint kk = 0; kk < BK; kk++) {
            TACC4 a[MAX_T4], b[MAX_T4];
            [[unroll]] for (uint i4 = 0; i4 < TM / 4; i4++)
                a[i4] = As[abase + kk * AS_ROW + i4 * WY + ty];
            [[unroll]] for (uint j4 = 0; j4 < TN / 4; j4++)
                b[j4] = Bs[bbase + kk * BN4 + j4 * WX + tx];
            [[unroll]] for (uint i4 = 0; i4 < TM / 4; i4++)
                [[unroll]] for (uint ii = 0; ii < 4; ii++)
                    [[unroll]] for (uint j4 = 0; j4 < TN / 4; j4++)
                        acc[i4 * 4 + ii][j4] += a[i4][ii] * b[j4];
        }

        /* the other buffer was last read before the previous barrier */
        if (more) {
            const uint anext = (cur ^ 1u) * AS_BUF, bnext = (cur ^ 1u) * BS_BUF;
            [[unroll]] for (uint i = 0; i < MAX_LD; i++) {
                uint l = tid + i * WG;
                if (l < A_VECS) {
                    uint r = l / BK4, kq = (l % BK4) * 4;
                    [[unroll]] for (uint c = 0; c < 4; c++)
                        As[anext + (kq + c) * AS_ROW + r / 4][r % 4] = ra[i][c];
                }
                if (l < B_VECS)
                    Bs[bnext + l] = rb[i];
            }
        }
        barrier();
    }

    [[unroll]] for (uint i4 = 0; i4 < TM / 4; i4++)
        [[unroll]] for (uint ii = 0; ii < 4; ii++) {
            uint row = bm0 + i4 * 4 * WY + ty * 4 + ii;
            if (row >= M)
                continue;
            [[unroll]] for (uint j4 = 0; j4 < TN / 4; j4++) {
                uint col = bn0 + (j4 * WX + tx) * 4;
                TACC4 v = acc[i4 * 4 + ii][j4];
                if (ALIGNED) {
                    if (col < N)
                        c4[row * (N / 4) + col / 4] = TOUT4(v);
                } else {
                    [[unroll]] for (uint c = 0; c < 4; c++)
                        if (col + c < N)
                            c1[row * N + col + c] = TOUT(v[c]);
                }
            }
        }
}

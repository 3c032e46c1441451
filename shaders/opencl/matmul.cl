/*
 * C[M][N] = A[M][K] * B[K][N], row-major, for fp32, fp16 and int8.
 *
 * Build-time defines (chosen per device by backends/opencl/cl_tuning.c):
 *   PREC       0 fp32 | 1 fp16 (half in/out, float accumulate) | 2 int8 (int accumulate/out)
 *   TM, TN     rows x columns of C each work-item computes
 *   VW         vector width of B loads and C stores (TN % VW == 0)  [register layout]
 *   USE_LOCAL  0: registers only (CPU devices: PoCL vectorises the explicit vectors)
 *              1: tiles of A and B staged in local memory (GPUs)
 *   WG0, WG1   work-group size of the local layout; TK its k tile
 */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#if PREC == 0
#define TIN float
#define TOUT float
#define TACC float
#define TOACC(x) (x)
#define MAC(a, b, c) fma((a), (b), (c))
#elif PREC == 1
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define TIN half
#define TOUT half
#define TACC float
#define TOACC(x) convert_float(x)
#define MAC(a, b, c) fma((a), (b), (c))
#else
#define TIN char
#define TOUT int
#define TACC int
#define TOACC(x) convert_int(x)
#define MAC(a, b, c) ((a) * (b) + (c))
#endif

#if USE_LOCAL == 0

/*
 * Register layout for CPU devices, in two steps. pack_a/pack_b copy A and B
 * into panels a work-item reads front to back (A: TM rows interleaved per k;
 * B: TN columns per k), zero-padded to whole tiles. Without it a work-item
 * walks a column panel of B with a row stride of N elements: at N = 1024 or
 * 2048 every row maps to the same cache set and the kernel runs from memory.
 * The copies are O(n^2) and their time is part of the measured run.
 */
#define NV (TN / VW)
#define TACCV CAT(TACC, VW)
#if PREC == 0
#define LOADB(off, p) CAT(vload, VW)(0, (p) + (off))
#define STOREC(v, off, p) CAT(vstore, VW)((v), 0, (p) + (off))
#elif PREC == 1
#define LOADB(off, p) CAT(convert_float, VW)(CAT(vload, VW)(0, (p) + (off)))
#define STOREC(v, off, p) CAT(vstore_half, VW)((v), 0, (p) + (off))
#else
#define LOADB(off, p) CAT(convert_int, VW)(CAT(vload, VW)(0, (p) + (off)))
#define STOREC(v, off, p) CAT(vstore, VW)((v), 0, (p) + (off))
#endif

/* Ap[r / TM][k][r % TM] = A[r][k]; global size (roundup(M, TM), K). */
__kernel void pack_a(__global const TIN *restrict A, __global TIN *restrict Ap, uint M, uint K)
{
    const uint r = get_global_id(0), k = get_global_id(1);
    Ap[((size_t)(r / TM) * K + k) * TM + r % TM] = r < M ? A[(size_t)r * K + k] : (TIN)0;
}

/* Bp[c / TN][k][c % TN] = B[k][c]; global size (roundup(N, TN), K). */
__kernel void pack_b(__global const TIN *restrict B, __global TIN *restrict Bp, uint N, uint K)
{
    const uint c = get_global_id(0), k = get_global_id(1);
    Bp[((size_t)(c / TN) * K + k) * TN + c % TN] = c < N ? B[(size_t)k * N + c] : (TIN)0;
}

__kernel void matmul(__global const TIN *restrict Ap, __global const TIN *restrict Bp,
                     __global TOUT *restrict C, uint M, uint N, uint K)
{
    const uint px = get_global_id(0), py = get_global_id(1);
    const uint col0 = px * TN, row0 = py * TM;
    if (row0 >= M || col0 >= N)
        return;
    __global const TIN *pa = Ap + (size_t)py * K * TM;
    __global const TIN *pb = Bp + (size_t)px * K * TN;

    /* Fully unrolled so the accumulators live in registers: a private
     * array indexed in a loop stays in memory on PoCL (3x slower). */
    TACCV acc[TM][NV];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < NV; j++)
            acc[i][j] = (TACCV)(0);
    for (uint k = 0; k < K; k++, pa += TM, pb += TN) {
        TACCV b[NV];
#pragma unroll
        for (int j = 0; j < NV; j++)
            b[j] = LOADB(j * VW, pb);
#pragma unroll
        for (int i = 0; i < TM; i++) {
            TACCV a = (TACCV)(TOACC(pa[i]));
#pragma unroll
            for (int j = 0; j < NV; j++)
                acc[i][j] = MAC(a, b[j], acc[i][j]);
        }
    }

    if (row0 + TM <= M && col0 + TN <= N) {
        for (int i = 0; i < TM; i++)
            for (int j = 0; j < NV; j++)
                STOREC(acc[i][j], j * VW, C + (size_t)(row0 + i) * N + col0);
        return;
    }
    /* Edge tile: store what lies inside C. */
    for (int i = 0; i < TM; i++) {
        if (row0 + i >= M)
            break;
        for (int j = 0; j < NV; j++) {
            TACC v[VW];
            CAT(vstore, VW)(acc[i][j], 0, v);
            for (int x = 0; x < VW; x++) {
                uint c = col0 + j * VW + x;
                if (c < N) {
#if PREC == 1
                    vstore_half(v[x], 0, C + (size_t)(row0 + i) * N + c);
#else
                    C[(size_t)(row0 + i) * N + c] = v[x];
#endif
                }
            }
        }
    }
}

#else /* USE_LOCAL */

#define BM (WG1 * TM)
#define BN (WG0 * TN)

__kernel __attribute__((reqd_work_group_size(WG0, WG1, 1)))
void matmul(__global const TIN *restrict A, __global const TIN *restrict B,
            __global TOUT *restrict C, uint M, uint N, uint K)
{
    /* As is stored k-major so a work-item reads its TM rows as a column. */
    __local TIN As[TK][BM + 1];
    __local TIN Bs[TK][BN];
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint lid = ly * WG0 + lx;
    const uint bm0 = get_group_id(1) * BM, bn0 = get_group_id(0) * BN;

    TACC acc[TM][TN];
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0;

    for (uint kt = 0; kt < K; kt += TK) {
        for (uint idx = lid; idx < BM * TK; idx += WG0 * WG1) {
            uint r = idx / TK, c = idx % TK;
            uint gr = bm0 + r, gc = kt + c;
            As[c][r] = (gr < M && gc < K) ? A[(size_t)gr * K + gc] : (TIN)0;
        }
        for (uint idx = lid; idx < BN * TK; idx += WG0 * WG1) {
            uint r = idx / BN, c = idx % BN;
            uint gr = kt + r, gc = bn0 + c;
            Bs[r][c] = (gr < K && gc < N) ? B[(size_t)gr * N + gc] : (TIN)0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int kk = 0; kk < TK; kk++) {
            TACC a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; i++)
                a[i] = TOACC(As[kk][ly * TM + i]);
            /* Columns interleaved across work-items: conflict-free local reads,
             * coalesced global stores. */
#pragma unroll
            for (int j = 0; j < TN; j++)
                b[j] = TOACC(Bs[kk][lx + j * WG0]);
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] = MAC(a[i], b[j], acc[i][j]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int i = 0; i < TM; i++) {
        uint r = bm0 + ly * TM + i;
        if (r >= M)
            break;
        for (int j = 0; j < TN; j++) {
            uint c = bn0 + lx + j * WG0;
            if (c < N) {
#if PREC == 1
                vstore_half(acc[i][j], 0, C + (size_t)r * N + c);
#else
                C[(size_t)r * N + c] = acc[i][j];
#endif
            }
        }
    }
}

#endif

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

__kernel void matmul(__global const TIN *restrict A, __global const TIN *restrict B,
                     __global TOUT *restrict C, uint M, uint N, uint K)
{
    const uint col0 = get_global_id(0) * TN;
    const uint row0 = get_global_id(1) * TM;
    if (row0 >= M || col0 >= N)
        return;

    if (row0 + TM <= M && col0 + TN <= N) {
        TACCV acc[TM][NV];
        for (int i = 0; i < TM; i++)
            for (int j = 0; j < NV; j++)
                acc[i][j] = (TACCV)(0);
        __global const TIN *arow = A + (size_t)row0 * K;
        for (uint k = 0; k < K; k++) {
            __global const TIN *brow = B + (size_t)k * N + col0;
            TACCV b[NV];
            for (int j = 0; j < NV; j++)
                b[j] = LOADB(j * VW, brow);
            for (int i = 0; i < TM; i++) {
                TACCV a = (TACCV)(TOACC(arow[(size_t)i * K + k]));
                for (int j = 0; j < NV; j++)
                    acc[i][j] = MAC(a, b[j], acc[i][j]);
            }
        }
        for (int i = 0; i < TM; i++)
            for (int j = 0; j < NV; j++)
                STOREC(acc[i][j], j * VW, C + (size_t)(row0 + i) * N + col0);
        return;
    }

    /* Edge tile: plain guarded loops. */
    for (uint i = row0; i < row0 + TM && i < M; i++) {
        for (uint j = col0; j < col0 + TN && j < N; j++) {
            TACC s = 0;
            for (uint k = 0; k < K; k++)
                s = MAC(TOACC(A[(size_t)i * K + k]), TOACC(B[(size_t)k * N + j]), s);
#if PREC == 1
            vstore_half(s, 0, C + (size_t)i * N + j);
#else
            C[(size_t)i * N + j] = s;
#endif
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
        for (int kk = 0; kk < TK; kk++) {
            TACC a[TM], b[TN];
            for (int i = 0; i < TM; i++)
                a[i] = TOACC(As[kk][ly * TM + i]);
            /* Columns interleaved across work-items: conflict-free local reads,
             * coalesced global stores. */
            for (int j = 0; j < TN; j++)
                b[j] = TOACC(Bs[kk][lx + j * WG0]);
            for (int i = 0; i < TM; i++)
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

/*
 * C[M][N] = A[M][K] * B[K][N], row-major, for fp32, fp16 and int8.
 *
 * Build-time defines: one point of the tuning space ff_cl_matmul_space declares
 * (backends/opencl/cl_tuning.c; its table picks the default per device):
 *   PREC       0 fp32 | 1 fp16 (half in/out, float accumulate) | 2 int8 (int accumulate/out)
 *   TM, TN     rows x columns of C each work-item computes
 *   VW         vector width of B loads and C stores (TN % VW == 0)
 *   USE_LOCAL  0: registers only (CPU devices: PoCL vectorises the explicit vectors)
 *              1: tiles of A and B staged in local memory (GPUs)
 *   WG0, WG1   work-group size; TK the k tile of the local layout
 *   KU         unroll factor of the k loop
 *   PACK       register layout: 1 reads A and B from packed panels (pack_a, pack_b), 0 reads
 *              them in place
 *   F32ACC     int8, packed register layout: 1 multiplies in fp32 on panels widened to float.
 *              Exact: each fp32 partial sum covers at most F32_CHUNK = 2^10 k steps, so with
 *              |a*b| <= 2^14 every partial sum is an integer of magnitude <= 2^24, which fp32
 *              holds exactly; after each chunk it is converted and added into C in int32.
 */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#ifndef KU
#define KU 1
#endif
#ifndef PACK
#define PACK 1
#endif
#ifndef F32ACC
#define F32ACC 0
#endif

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
#elif F32ACC
#define TIN char
#define TOUT int
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

/* Vectors of VW elements, VW = 1 included (OpenCL C has no float1, vload1 ...). */
#if VW == 1
#define VT(t) t
#define VLOAD(p) (*(p))
#define VSTORE(v, p) (*(p) = (v))
#define VLOAD_HALF(p) vload_half(0, (p))
#define VSTORE_HALF(v, p) vstore_half((v), 0, (p))
#define CONV(t, x) CAT(convert_, t)(x)
#else
#define VT(t) CAT(t, VW)
#define VLOAD(p) CAT(vload, VW)(0, (p))
#define VSTORE(v, p) CAT(vstore, VW)((v), 0, (p))
#define VLOAD_HALF(p) CAT(vload_half, VW)(0, (p))
#define VSTORE_HALF(v, p) CAT(vstore_half, VW)((v), 0, (p))
#define CONV(t, x) CAT(CAT(convert_, t), VW)(x)
#endif
#define NV (TN / VW)
#define TACCV VT(TACC)

/* VW inputs from p (global or local) widened to the accumulator type. */
#if PREC == 0
#define LOADV(p) VLOAD(p)
#elif PREC == 1
#define LOADV(p) VLOAD_HALF(p)
#elif F32ACC
#define LOADV(p) VLOAD(p) /* the panels hold floats */
#else
#define LOADV(p) CONV(int, VLOAD(p))
#endif

/* Store VW accumulators to C at p. */
#if PREC == 1
#define STOREC(v, p) VSTORE_HALF((v), (p))
#elif F32ACC
#define STOREC(v, p) VSTORE(CONV(int, v), (p))
#else
#define STOREC(v, p) VSTORE((v), (p))
#endif

/* One accumulator to C[off]; `add` (F32ACC chunks after the first) adds to what is there. */
#if PREC == 1
#define STORE1(v, C, off, add) vstore_half((v), (off), (C))
#elif F32ACC
#define STORE1(v, C, off, add) ((C)[off] = ((add) ? (C)[off] : 0) + convert_int(v))
#else
#define STORE1(v, C, off, add) ((C)[off] = (v))
#endif

#if USE_LOCAL == 0

/*
 * Register layout for CPU devices. With PACK, pack_a/pack_b first copy A and B into panels a
 * work-item reads front to back (A: TM rows interleaved per k; B: TN columns per k),
 * zero-padded to whole tiles. Without it a work-item walks a column panel of B with a row
 * stride of N elements: at N = 1024 or 2048 every row maps to the same cache set and the
 * kernel runs from memory. The copies are O(n^2) and their time is part of the measured run.
 */
#if F32ACC
#define TP float /* panel element */
#define CHUNK 1024u
#else
#define TP TIN
#define CHUNK K
#endif

#if PACK
/* Ap[r / TM][k][r % TM] = A[r][k]; global size (roundup(M, TM), K). */
__kernel void pack_a(__global const TIN *restrict A, __global TP *restrict Ap, uint M, uint K)
{
    const uint r = get_global_id(0), k = get_global_id(1);
    Ap[((size_t)(r / TM) * K + k) * TM + r % TM] = r < M ? (TP)A[(size_t)r * K + k] : (TP)0;
}

/* Bp[c / TN][k][c % TN] = B[k][c]; global size (roundup(N, TN), K). */
__kernel void pack_b(__global const TIN *restrict B, __global TP *restrict Bp, uint N, uint K)
{
    const uint c = get_global_id(0), k = get_global_id(1);
    Bp[((size_t)(c / TN) * K + k) * TN + c % TN] = c < N ? (TP)B[(size_t)k * N + c] : (TP)0;
}
#else
/* An edge tile's VW columns from c on, those past N as zeros. */
static inline TACCV load_b_edge(__global const TIN *p, uint c, uint N)
{
    TACC v[VW];
    for (int x = 0; x < VW; x++)
        v[x] = c + x < N ? TOACC(p[x]) : (TACC)0;
    return VLOAD(v);
}
#endif

__kernel void matmul(__global const TP *restrict Ap, __global const TP *restrict Bp,
                     __global TOUT *restrict C, uint M, uint N, uint K)
{
    const uint px = get_global_id(0), py = get_global_id(1);
    const uint col0 = px * TN, row0 = py * TM;
    if (row0 >= M || col0 >= N)
        return;
    const bool full = row0 + TM <= M && col0 + TN <= N;
#if PACK
    __global const TP *pa = Ap + (size_t)py * K * TM;
    __global const TP *pb = Bp + (size_t)px * K * TN;
#define A_AT(i) pa[i]
#define B_AT(j) LOADV(pb + (j) * VW)
#define STEP() (pa += TM, pb += TN)
#else
    /* In place: rows past M read row M - 1 (their results are discarded); an edge tile loads
     * B column by column, those past N as zeros. */
    __global const TP *pa[TM];
#pragma unroll
    for (int i = 0; i < TM; i++)
        pa[i] = Ap + (size_t)min(row0 + i, M - 1) * K;
    __global const TP *pb = Bp + col0;
    const bool edge = col0 + TN > N;
#define A_AT(i) pa[i][k]
#define B_AT(j) (edge ? load_b_edge(pb + (j) * VW, col0 + (j) * VW, N) : LOADV(pb + (j) * VW))
#define STEP() (pb += N)
#endif

    uint k0 = 0;
    do {
        const uint k1 = min(K, k0 + CHUNK);
        /* Fully unrolled so the accumulators live in registers: a private
         * array indexed in a loop stays in memory on PoCL (3x slower). */
        TACCV acc[TM][NV];
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
            for (int j = 0; j < NV; j++)
                acc[i][j] = (TACCV)(0);
        __attribute__((opencl_unroll_hint(KU))) for (uint k = k0; k < k1; k++, STEP())
        {
            TACCV b[NV];
#pragma unroll
            for (int j = 0; j < NV; j++)
                b[j] = B_AT(j);
#pragma unroll
            for (int i = 0; i < TM; i++) {
                TACCV a = (TACCV)(TOACC(A_AT(i)));
#pragma unroll
                for (int j = 0; j < NV; j++)
                    acc[i][j] = MAC(a, b[j], acc[i][j]);
            }
        }

        if (full) {
            for (int i = 0; i < TM; i++)
                for (int j = 0; j < NV; j++) {
                    __global TOUT *c = C + (size_t)(row0 + i) * N + col0 + j * VW;
#if F32ACC
                    if (k0) /* a later chunk: add to the earlier ones (exact in int32) */
                        VSTORE(VLOAD(c) + CONV(int, acc[i][j]), c);
                    else
#endif
                        STOREC(acc[i][j], c);
                }
        } else {
            /* Edge tile: store what lies inside C. */
            for (int i = 0; i < TM; i++) {
                if (row0 + i >= M)
                    break;
                for (int j = 0; j < NV; j++) {
                    TACC v[VW];
                    VSTORE(acc[i][j], v);
                    for (int x = 0; x < VW; x++) {
                        uint c = col0 + j * VW + x;
                        if (c < N)
                            STORE1(v[x], C, (size_t)(row0 + i) * N + c, k0);
                    }
                }
            }
        }
    } while ((k0 += CHUNK) < K);
}

#else /* USE_LOCAL */

/*
 * Local-memory layout for GPUs: a work-group computes BM x BN of C, staging TK-deep tiles of A
 * and B in local memory. A work-item owns TM rows and NV vectors of VW columns, the vectors
 * interleaved across the work-group's x (conflict-free local reads, coalesced global stores).
 */
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

    TACCV acc[TM][NV];
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < NV; j++)
            acc[i][j] = (TACCV)(0);

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
        __attribute__((opencl_unroll_hint(KU))) for (int kk = 0; kk < TK; kk++)
        {
            TACCV b[NV];
#pragma unroll
            for (int j = 0; j < NV; j++)
                b[j] = LOADV(&Bs[kk][(j * WG0 + lx) * VW]);
#pragma unroll
            for (int i = 0; i < TM; i++) {
                TACCV a = (TACCV)(TOACC(As[kk][ly * TM + i]));
#pragma unroll
                for (int j = 0; j < NV; j++)
                    acc[i][j] = MAC(a, b[j], acc[i][j]);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int i = 0; i < TM; i++) {
        uint r = bm0 + ly * TM + i;
        if (r >= M)
            break;
        for (int j = 0; j < NV; j++) {
            uint c = bn0 + (j * WG0 + lx) * VW;
            if (c + VW <= N) {
                STOREC(acc[i][j], C + (size_t)r * N + c);
            } else {
                TACC v[VW];
                VSTORE(acc[i][j], v);
                for (int x = 0; x < VW; x++)
                    if (c + x < N)
                        STORE1(v[x], C, (size_t)r * N + c + x, 0);
            }
        }
    }
}

#endif

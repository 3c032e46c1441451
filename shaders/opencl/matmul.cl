/*
 * C[M][N] = A[M][K] * B[K][N], row-major, for fp32, fp16 and int8.
 *
 * Build-time defines: one point of the tuning space ff_cl_matmul_space declares
 * (backends/opencl/cl_tuning.c; its table picks the default per device):
 *   PREC       0 fp32 | 1 fp16 (half in/out, float accumulate) | 2 int8 (int accumulate/out)
 *              | 3 fp16 storage only (half in/out, float arithmetic; no cl_khr_fp16 needed):
 *              register layout, B packed and A packed or in place, both widened to float
 *   TM, TN     rows x columns of C each work-item computes
 *   VW         vector width of B loads and C stores (TN % VW == 0)
 *   USE_LOCAL  0: registers only (CPU devices: PoCL vectorises the explicit vectors)
 *              1: tiles of A and B staged in local memory (GPUs)
 *   WG0, WG1   work-group size; TK the k tile of the local layout
 *   KU         unroll factor of the k loop
 *   PACK       register layout, a bit mask: 1 reads B from packed panels (pack_b), 2 reads A
 *              from packed panels (pack_a); an operand not packed is read in place
 *   RB         register layout with B packed and A in place (PACK 1), not F32ACC: RB > 1 has
 *              one work-item take RB row blocks of C against one B panel, KC k steps at a
 *              time, their sums kept in private memory between the slices, where the panel
 *              (K x TN) passes PANEL_CACHED bytes: the panel's slice is read from the core's
 *              cache RB times, where a work-item per row block would stream the whole panel
 *              each, from the last-level cache once it outgrows the core's own
 *   F32ACC     int8, register layout: 1 multiplies in fp32 on A and B widened to float (in
 *              their panels, or A row-major when it is not packed).
 *              Exact: each fp32 partial sum covers at most F32_CHUNK = 2^10 k steps, so with
 *              |a*b| <= 2^14 every partial sum is an integer of magnitude <= 2^24, which fp32
 *              holds exactly; after each chunk it is converted and added into C in int32.
 *   DOT        int8, register layout: 1 runs 4-way byte dot products (x86 AVX-512 VNNI's
 *              vpdpbusd, 64 multiply-adds per instruction, through clang's builtin in a
 *              function compiled for that feature); the host builds it only where the CPU
 *              has the instruction (cl_tuning.c). Its own block below.
 */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#ifndef RB
#define RB 1
#endif
#define KC 1024u /* k steps per slice with RB > 1 */
#define PANEL_CACHED (1u << 20) /* bytes: half of a 2 MiB L2, all of a 1 MiB one */
#ifndef KU
#define KU 1
#endif
#ifndef PACK
#define PACK 3
#endif
#define PACKB (PACK & 1)
#define PACKA ((PACK >> 1) & 1)
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
#elif PREC == 3
#define TIN half /* only read and written through vload_half / vstore_half */
#define TOUT half
#define TACC float
#define TOACC(x) (x)
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
#elif PREC == 1 || PREC == 3
#define LOADV(p) VLOAD_HALF(p)
#elif F32ACC
#define LOADV(p) CONV(float, VLOAD(p))
#else
#define LOADV(p) CONV(int, VLOAD(p))
#endif

/* Store VW accumulators to C at p. */
#if PREC == 1 || PREC == 3
#define STOREC(v, p) VSTORE_HALF((v), (p))
#elif F32ACC
#define STOREC(v, p) VSTORE(CONV(int, v), (p))
#else
#define STOREC(v, p) VSTORE((v), (p))
#endif

/* One accumulator to C[off]; `add` (F32ACC chunks after the first) adds to what is there. */
#if PREC == 3 && defined(__F16C__) && defined(__clang__)
/* rounded to nearest even by the CPU's vcvtps2ph: PoCL's vstore_half is a function call, and
 * a call in the kernel makes the accumulators spill in its k loop (no vector register
 * survives a call): half the speed */
#define STORE1(v, C, off, add)                                                                 \
    (((__global ushort *)(C))[off] =                                                           \
         as_ushort8(__builtin_ia32_vcvtps2ph((float4)((v), 0.0f, 0.0f, 0.0f), 0)).s0)
#elif PREC == 1 || PREC == 3
#define STORE1(v, C, off, add) vstore_half((v), (off), (C))
#elif F32ACC
#define STORE1(v, C, off, add) ((C)[off] = ((add) ? (C)[off] : 0) + convert_int(v))
#else
#define STORE1(v, C, off, add) ((C)[off] = (v))
#endif

#ifndef DOT
#define DOT 0
#endif

#if PREC == 2 && DOT

/*
 * int8 by 4-way dot products on x86 CPUs with AVX-512 VNNI. vpdpbusd multiplies unsigned
 * bytes of its first operand by signed bytes of its second and adds each group of four
 * products into a 32-bit lane, wrapping. B is the unsigned side: pack_b stores B + 128 (b ^
 * 0x80) as uchar, four k steps of one column per 32-bit lane, TN columns per panel row; A is
 * the signed side, four k steps of one row broadcast to every lane. So a work-item's sums are
 * S[i][j] = sum_k A[i][k] * (B[k][j] + 128) = C[i][j] + 128 * rowsum(A[i]), and C = S - 128 *
 * rowsum, exact in 32-bit wrap-around arithmetic whenever C itself fits in int32 (the
 * reference's own condition). Padding (k past K, rows past M, columns past N) is zero on
 * both sides, so it adds nothing.
 *
 * Layouts, K4 = K rounded up to 4:
 *   Ap: rows 0 .. roundup(M, TM) of K4 chars each (zeros past K and past M), then one int per
 *       row: rowsum(A[r]).
 *   Bp: panel p (columns p*TN ..), quad q: TN lanes of 4 uchars B[4q + t][p*TN + j] + 128.
 */
#define DNV (TN / 16) /* 16-lane vectors per panel row */
#define K4(K) (((K) + 3u) & ~3u)
typedef int v16si __attribute__((vector_size(64)));

/* pack_a: one row per work-item, global size (roundup(M, TM), 1). */
__kernel void pack_a(__global const char *restrict A, __global char *restrict Ap, uint M, uint K)
{
    const uint r = get_global_id(0), k4 = K4(K);
    const uint mp = get_global_size(0);
    __global char *dst = Ap + (size_t)r * k4;
    int sum = 0;
    if (r < M) {
        __global const char *src = A + (size_t)r * K;
        for (uint k = 0; k < K; k++) {
            dst[k] = src[k];
            sum += src[k];
        }
    } else {
        for (uint k = 0; k < K; k++)
            dst[k] = 0;
    }
    for (uint k = K; k < k4; k++)
        dst[k] = 0;
    ((__global int *)(Ap + (size_t)mp * k4))[r] = sum;
}

/* pack_b: one quad of one panel per work-item, global size (roundup(N, TN) / TN, K4 / 4). */
__kernel void pack_b(__global const char *restrict B, __global uchar *restrict Bp, uint N, uint K)
{
    const uint p = get_global_id(0), q = get_global_id(1), c0 = p * TN;
    __global uchar *dst = Bp + ((size_t)p * (K4(K) / 4) + q) * TN * 4;
    for (uint j = 0; j < TN; j++)
        for (uint t = 0; t < 4; t++) {
            const uint k = q * 4 + t, c = c0 + j;
            dst[j * 4 + t] = k < K && c < N ? (uchar)(B[(size_t)k * N + c] ^ 0x80) : (uchar)0;
        }
}

/*
 * The TM x TN tile's sums S over nq quads into out (TM rows of TN ints): TM * DNV accumulators,
 * DNV panel vectors per quad, one broadcast of A per row. Compiled for AVX-512 VNNI (the
 * kernel around it is not: the host built this point only on a CPU that has it) and kept out
 * of line so the attribute holds.
 */
__attribute__((target("avx512vnni"), noinline))
static void dot_tile(__global const int *restrict a, uint lda, __global const v16si *restrict b,
                     uint nq, int *restrict out)
{
    v16si acc[TM][DNV];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < DNV; j++)
            acc[i][j] = (v16si){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    __attribute__((opencl_unroll_hint(KU))) for (uint q = 0; q < nq; q++, b += DNV)
    {
        v16si bv[DNV];
#pragma unroll
        for (int j = 0; j < DNV; j++)
            bv[j] = b[j];
#pragma unroll
        for (int i = 0; i < TM; i++) {
            const int x = a[(size_t)i * lda + q];
            const v16si av = {x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x};
#pragma unroll
            for (int j = 0; j < DNV; j++)
                acc[i][j] = __builtin_ia32_vpdpbusd512(acc[i][j], bv[j], av);
        }
    }
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < DNV; j++)
            for (int x = 0; x < 16; x++)
                out[i * TN + j * 16 + x] = acc[i][j][x];
}

__kernel void matmul(__global const char *restrict Ap, __global const uchar *restrict Bp,
                     __global int *restrict C, uint M, uint N, uint K)
{
    const uint px = get_global_id(0), py = get_global_id(1);
    const uint col0 = px * TN, row0 = py * TM, k4 = K4(K);
    if (row0 >= M || col0 >= N)
        return;
    const uint mp = (M + TM - 1) / TM * TM;
    __global const int *rowsum = (__global const int *)(Ap + (size_t)mp * k4);
    int s[TM * TN];
    dot_tile((__global const int *)(Ap + (size_t)row0 * k4), k4 / 4,
             (__global const v16si *)(Bp + (size_t)px * k4 * TN), k4 / 4, s);
    for (int i = 0; i < TM; i++) {
        const uint r = row0 + i;
        if (r >= M)
            break;
        const uint corr = 128u * (uint)rowsum[r];
        __global int *c = C + (size_t)r * N + col0;
        if (col0 + TN <= N) {
            for (int j = 0; j < TN; j += 16)
                vstore16(as_int16(vload16(0, (const uint *)s + i * TN + j) - (uint16)(corr)),
                         0, c + j);
        } else {
            for (int j = 0; col0 + j < N; j++)
                c[j] = (int)((uint)s[i * TN + j] - corr);
        }
    }
}

#elif USE_LOCAL == 0

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
#elif PREC == 3
#define TP float
#define CHUNK K
#else
#define TP TIN
#define CHUNK K
#endif

/* Element i of an input array, as a panel element. */
#if PREC == 3
#define IN1(p, i) vload_half((i), (p))
#else
#define IN1(p, i) ((TP)(p)[i])
#endif

#if PACKA
/* Ap[r / TM][k][r % TM] = A[r][k], zeros for rows past M; global size (K, roundup(M, TM) /
 * TM): work-item (k, p) writes one TM-long row of panel p; neighbours in k read neighbouring
 * elements of the same TM rows. */
__kernel void pack_a(__global const TIN *restrict A, __global TP *restrict Ap, uint M, uint K)
{
    const uint k = get_global_id(0), p = get_global_id(1);
    __global TP *dst = Ap + ((size_t)p * K + k) * TM;
#pragma unroll
    for (int i = 0; i < TM; i++) {
        const uint r = p * TM + i;
        dst[i] = r < M ? IN1(A, (size_t)r * K + k) : (TP)0;
    }
}
#endif

#if (F32ACC || PREC == 3) && !PACKA
/* int8 or fp16 storage with A in place: A widened to float, still row-major (Af[r][k] =
 * A[r][k]), so the kernel's broadcasts need no conversion; global size (roundup(K, 16) / 16,
 * M). */
__kernel void pack_a(__global const TIN *restrict A, __global TP *restrict Af, uint M, uint K)
{
    const uint k0 = get_global_id(0) * 16, r = get_global_id(1);
    __global const TIN *src = A + (size_t)r * K + k0;
    __global TP *dst = Af + (size_t)r * K + k0;
    if (k0 + 16 <= K)
#if PREC == 3
        vstore16(vload_half16(0, src), 0, dst);
#else
        vstore16(convert_float16(vload16(0, src)), 0, dst);
#endif
    else
        for (uint x = 0; k0 + x < K; x++)
            dst[x] = IN1(src, x);
}
#endif

#if PACKB
/* Bp[c / TN][k][0 .. TN) = B[k][c .. c + TN), zeros past N; global size (roundup(N, TN) / TN,
 * K): one row of a panel per work-item, read and written in VW-wide vectors. */
__kernel void pack_b(__global const TIN *restrict B, __global TP *restrict Bp, uint N, uint K)
{
    const uint p = get_global_id(0), k = get_global_id(1), c0 = p * TN;
    __global TP *dst = Bp + ((size_t)p * K + k) * TN;
    __global const TIN *src = B + (size_t)k * N + c0;
    if (c0 + TN <= N) {
#pragma unroll
        for (int j = 0; j < NV; j++)
#if F32ACC
            VSTORE(CONV(float, VLOAD(src + j * VW)), dst + j * VW);
#elif PREC == 3
            VSTORE(VLOAD_HALF(src + j * VW), dst + j * VW);
#else
            VSTORE(VLOAD(src + j * VW), dst + j * VW);
#endif
    } else {
        for (int j = 0; j < TN; j++)
            dst[j] = c0 + j < N ? IN1(src, j) : (TP)0;
    }
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

#if PACKA || F32ACC || PREC == 3
#define TPA TP /* F32ACC or PREC 3 in place: the widened copy of A */
#else
#define TPA TIN
#endif
#if PACKB
#define TPB TP
#if F32ACC || PREC == 3
#define LOADP(p) VLOAD(p) /* the panels hold floats */
#else
#define LOADP(p) LOADV(p)
#endif
#else
#define TPB TIN
#endif

/* One k step of the tile: row k of B (its panel or in place) times column k of A, into
 * acc; A_AT and B_AT read through the pa and pb in scope. */
#define K_STEP(acc)                                                                                \
    {                                                                                              \
        TACCV b[NV];                                                                               \
        _Pragma("unroll") for (int j = 0; j < NV; j++) b[j] = B_AT(j);                             \
        _Pragma("unroll") for (int i = 0; i < TM; i++)                                             \
        {                                                                                          \
            TACCV a = (TACCV)(TOACC(A_AT(i)));                                                     \
            _Pragma("unroll") for (int j = 0; j < NV; j++) acc[i][j] = MAC(a, b[j], acc[i][j]);    \
        }                                                                                          \
    }

__kernel void matmul(__global const TPA *restrict Ap, __global const TPB *restrict Bp,
                     __global TOUT *restrict C, uint M, uint N, uint K)
{
    const uint px = get_global_id(0), py = get_global_id(1);
    const uint col0 = px * TN, row0 = py * TM;
    if (row0 >= M || col0 >= N)
        return;
    const bool full = row0 + TM <= M && col0 + TN <= N;
#if PACKA
    __global const TPA *pa = Ap + (size_t)py * K * TM;
#define A_AT(i) pa[i]
#define STEPA() (pa += TM)
#else
    /* In place: TM row streams; rows past M read row M - 1 (their results are discarded). */
    __global const TPA *pa[TM];
#pragma unroll
    for (int i = 0; i < TM; i++)
        pa[i] = Ap + (size_t)min(row0 + i, M - 1) * K;
#define A_AT(i) pa[i][k]
#define STEPA() 0
#endif
#if PACKB
    __global const TPB *pb = Bp + (size_t)px * K * TN;
#define B_AT(j) LOADP(pb + (j) * VW)
#define STEPB() (pb += TN)
#else
    /* In place: row k of B from column col0; an edge tile loads column by column, those past
     * N as zeros. */
    __global const TPB *pb = Bp + col0;
    const bool edge = col0 + TN > N;
#define B_AT(j) (edge ? load_b_edge(pb + (j) * VW, col0 + (j) * VW, N) : LOADV(pb + (j) * VW))
#define STEPB() (pb += N)
#endif
#if RB > 1 && PACK == 1 && !F32ACC
    /* Where the RB row blocks of py's group are whole tiles and the panel is large, the
     * group's first work-item computes them all and the others have nothing to do; an edge
     * tile (past N or M) takes the one-block path below. */
    if (col0 + TN <= N && (py / RB + 1) * RB * TM <= M &&
        (size_t)K * TN * sizeof(TACC) > PANEL_CACHED) {
        if (py % RB)
            return;
        TACCV part[RB][TM][NV];
        __global const TPB *const panel = pb;
        for (uint kb = 0; kb < K; kb += KC) {
            const uint ke = min(K, kb + KC);
            for (uint r = 0; r < RB; r++) {
                TACCV acc[TM][NV];
                __global const TPA *pa[TM];
#pragma unroll
                for (int i = 0; i < TM; i++) {
#pragma unroll
                    for (int j = 0; j < NV; j++)
                        acc[i][j] = kb ? part[r][i][j] : (TACCV)(0);
                    pa[i] = Ap + (size_t)(row0 + r * TM + i) * K;
                }
                __global const TPB *pb = panel + (size_t)kb * TN;
                __attribute__((opencl_unroll_hint(KU))) for (uint k = kb; k < ke; k++, STEPB())
                    K_STEP(acc)
#pragma unroll
                for (int i = 0; i < TM; i++)
#pragma unroll
                    for (int j = 0; j < NV; j++)
                        part[r][i][j] = acc[i][j];
            }
        }
        for (uint r = 0; r < RB; r++)
            for (int i = 0; i < TM; i++)
                for (int j = 0; j < NV; j++)
                    STOREC(part[r][i][j], C + (size_t)(row0 + r * TM + i) * N + col0 + j * VW);
        return;
    }
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
        __attribute__((opencl_unroll_hint(KU))) for (uint k = k0; k < k1; k++, STEPA(), STEPB())
            K_STEP(acc)

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

/*
 * A transformer's own operations (backend.h, FF_KERNEL_GEMV and after): one kernel per op,
 * each built per point of its tuning space (backends/opencl/cl_ops.c) with -D options.
 * Activations, outputs and accumulation are fp32; weights and KV caches are read in their
 * storage format and widened in registers: fp16 through vload_half (core OpenCL C, no
 * cl_khr_fp16), bf16 as the high half of an fp32.
 *
 * On a CPU device (PoCL) a work-item is one iteration of a loop over the work-group, so the
 * kernels do their own vectorisation: each item streams whole rows with VW-wide vector loads
 * and keeps its sums in VW-wide registers, reduced once at its end.
 *
 *   gemv         -DFMT (0 fp32, 1 fp16, 2 bf16, 3 int8, 4 q8_0, 5 q4_0) -DVW (4, 8, 16)
 *                -DROWS (rows of W per item) -DMB (rows of X per item) -DPF, -DNEXT (CPU
 *                prefetches: PF bytes ahead in each row; the next item's rows)
 *   attn_decode  -DKVF (0 fp32, 1 fp16, 2 bf16) -DKD (head dim) -DVW (divides KD) -DG (query
 *                rows per KV head) -DSPLIT (items per work-group) -DPARTS (work-groups per
 *                KV head) -DTILE -DPF -DQK (1: scores without lane reductions, VW 16 and
 *                2 <= G <= 8; PF > 0 then prefetches each phase's rows a phase ahead)
 *   attn_prefill -DKVF -DKD -DVW -DBQ (query rows per item) -DTILE
 *   rmsnorm, rope, swiglu, add, xent: -DVW.
 */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
/* loops over the compile-time row and vector counts: unrolled, so their arrays live in
 * registers */
#define UNROLL _Pragma("unroll")

/* PF > 0 (CPU devices only, cl_ops.c): a software prefetch PF bytes ahead in every weight row
 * a gemv item streams. OpenCL's prefetch() is a no-op on PoCL; clang's builtin emits the
 * instruction. Several rows read at once, with the arithmetic between the loads, keep fewer
 * misses in flight than a plain stream; the hint restores the stream's rate. */
#ifndef PF
#define PF 0
#endif
#ifndef NEXT
#define NEXT 0
#endif
#define PREFETCH(p) __builtin_prefetch(p)
/* into the second-level cache only: rows wanted a phase of the loop later, not next */
#define PREFETCH_L2(p) __builtin_prefetch(p, 0, 2)

#ifndef VW
#define VW 16
#endif

#if VW == 1
#define FV float
#define VLOADF(p) (*(p))
#define VLOADH(p) vload_half(0, (p))
#define VLOADUS(p) (*(p))
#define VLOADC(p) (*(p))
#define VLOADUC(p) (*(p))
#define CONVF(x) ((float)(x))
#define CONVU(x) ((uint)(x))
#define AS_FV(x) as_float(x)
#define VSTOREF(v, p) (*(p) = (v))
#else
#define FV CAT(float, VW)
#define VLOADF(p) CAT(vload, VW)(0, (p))
#define VLOADH(p) CAT(vload_half, VW)(0, (p))
#define VLOADUS(p) CAT(vload, VW)(0, (p))
#define VLOADC(p) CAT(vload, VW)(0, (p))
#define VLOADUC(p) CAT(vload, VW)(0, (p))
#define CONVF(x) CAT(convert_float, VW)(x)
#define CONVU(x) CAT(convert_uint, VW)(x)
#define AS_FV(x) CAT(as_float, VW)(x)
#define VSTOREF(v, p) CAT(vstore, VW)((v), 0, (p))
#endif

/* The sum of a vector's lanes, halving (a tree, not a chain). */
static inline float hsum(FV v)
{
#if VW >= 16
    float8 v8 = v.lo + v.hi;
#elif VW == 8
    float8 v8 = v;
#endif
#if VW >= 8
    float4 v4 = v8.lo + v8.hi;
#elif VW == 4
    float4 v4 = v;
#endif
#if VW >= 4
    float2 v2 = v4.lo + v4.hi;
    return v2.x + v2.y;
#elif VW == 2
    return v.x + v.y;
#else
    return v;
#endif
}

/*
 * fp16 bits to float, exactly (normals rebiased, subnormals renormalised by a float
 * subtraction of normal numbers, so no denormal arithmetic; infinities and NaNs kept), in
 * integer vector operations: PoCL widens a scalar vload_half in ~20 scalar instructions, and
 * gemv reads one fp16 scale per block and row. T is a float type, U the uint type as wide.
 */
#define H2F_BODY(T, U, AS_T, AS_U)                                                             \
    {                                                                                          \
        const U o = (h & 0x7fffu) << 13, e = o & 0x0f800000u;                                  \
        U r = select(o + 0x38000000u, o + 0x70000000u, e == 0x0f800000u);                      \
        const T sub = AS_T(o + 0x38800000u) - AS_T((U)0x38800000u);                            \
        r = select(r, AS_U(sub), e == 0u);                                                     \
        return AS_T(r | ((h & 0x8000u) << 16));                                                \
    }
static inline float h2f(uint h) H2F_BODY(float, uint, as_float, as_uint)
static inline float16 h2f16(uint16 h) H2F_BODY(float16, uint16, as_float16, as_uint16)

/* The largest of a vector's lanes. */
static inline float hmax(FV v)
{
#if VW >= 16
    float8 v8 = fmax(v.lo, v.hi);
#elif VW == 8
    float8 v8 = v;
#endif
#if VW >= 8
    float4 v4 = fmax(v8.lo, v8.hi);
#elif VW == 4
    float4 v4 = v;
#endif
#if VW >= 4
    float2 v2 = fmax(v4.lo, v4.hi);
    return fmax(v2.x, v2.y);
#elif VW == 2
    return fmax(v.x, v.y);
#else
    return v;
#endif
}

/* ---- storage formats of float weights and KV caches ---- */
/* F: 0 fp32, 1 fp16, 2 bf16. VLOAD_FMT reads VW elements at p, LOAD1_FMT one. */
#define FLOAD_0(p) VLOADF(p)
#define FLOAD_1(p) VLOADH(p)
#define FLOAD_2(p) AS_FV(CONVU(VLOADUS(p)) << 16)
#define FLOAD1_0(p) (*(p))
#define FLOAD1_1(p) vload_half(0, (p))
#define FLOAD1_2(p) as_float((uint)(*(p)) << 16)
#define FTYPE_0 float
#define FTYPE_1 half
#define FTYPE_2 ushort

/* ======================================================================== gemv */
#ifdef FMT

#if FMT <= 2
#define WT CAT(FTYPE_, FMT)
#define WLOAD(p) CAT(FLOAD_, FMT)(p)
#define WLOAD1(p) CAT(FLOAD1_, FMT)(p)
#elif FMT == 3
#define WT char
#define WLOAD(p) CONVF(VLOADC(p))
#define WLOAD1(p) ((float)*(p))
#else
#define WT uchar
#endif

#if FMT >= 4
#if FMT == 4
#define BLOCK_BYTES 32
#else
#define BLOCK_BYTES 16
#endif
/* q4_0 on an AVX-512 CPU device (PoCL compiles for the host): its weights widened by a table
 * lookup in a 16-lane permute, which the OpenCL built-in shuffle() does not compile to */
#if FMT == 5 && VW == 16 && defined(__AVX512F__) && defined(__clang__)
#define Q4_TABLE 1
#else
#define Q4_TABLE 0
#endif

/* Block blk (32 weights along k) of every row, its scale at ds[r][slot]:
 * acc[r][b] += d sum_j q_j x_j for the MB rows of X. */
static inline __attribute__((always_inline)) void
qblock(FV acc[ROWS][MB], __global const uchar *const wq[ROWS], float ds[ROWS][16],
       __global const float *const x[MB], uint blk, uint slot)
{
    FV xv[MB][32 / VW];
    UNROLL for (uint b = 0; b < MB; b++)
        UNROLL for (uint c = 0; c < 32 / VW; c++)
            xv[b][c] = VLOADF(x[b] + blk * 32 + c * VW);
    UNROLL for (uint r = 0; r < ROWS; r++) {
        const float d = ds[r][slot];
        __global const uchar *q = wq[r] + (size_t)blk * BLOCK_BYTES;
#if PF > 0
        PREFETCH(q + PF);
#endif
        FV wv[32 / VW];
#if FMT == 4
        UNROLL for (uint c = 0; c < 32 / VW; c++)
            wv[c] = CONVF(CAT(as_char, VW)(VLOADUC(q + c * VW)));
#elif Q4_TABLE
        /* byte j: element j in the low nibble, j + 16 in the high one. The nibble indexes a
         * table of the 16 values v - 8 (vpermps reads only an index's low four bits): one
         * permute per 16 weights. */
        const float16 table = (float16)(-8.0f, -7.0f, -6.0f, -5.0f, -4.0f, -3.0f, -2.0f,
                                        -1.0f, 0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f);
        const int16 nib = as_int16(convert_uint16(vload16(0, q)));
        wv[0] = __builtin_ia32_permvarsf512(table, nib);
        wv[1] = __builtin_ia32_permvarsf512(table, nib >> 4);
#else
        /* byte j: element j in the low nibble, j + 16 in the high one. A nibble v becomes
         * the float 2^23 + v by or-ing it into 2^23's mantissa, and subtracting 2^23 + 8
         * leaves v - 8 exactly: one bit operation and one subtraction per 16 weights in
         * place of a mask, a byte subtraction and an int-to-float conversion. */
        UNROLL for (uint c = 0; c < 16 / VW; c++) {
            const CAT(uint, VW) dw = CONVU(VLOADUC(q + c * VW));
            wv[c] = AS_FV((dw & 15u) | 0x4b000000u) - 8388616.0f;
            wv[c + 16 / VW] = AS_FV((dw >> 4) | 0x4b000000u) - 8388616.0f;
        }
#endif
        UNROLL for (uint b = 0; b < MB; b++) {
            FV t = wv[0] * xv[b][0];
            UNROLL for (uint c = 1; c < 32 / VW; c++)
                t = fma(wv[c], xv[b][c], t);
            acc[r][b] = fma((FV)(d), t, acc[r][b]);
        }
    }
}
#endif

/*
 * Y[m][n] = sum_k X[m][k] W[n][k] (times the row's scale for int8, the block's for q8_0 and
 * q4_0). Global size (ceil(N / ROWS), ceil(M / MB)): item (i, j) computes the ROWS x MB
 * outputs of rows i*ROWS.. of W and j*MB.. of X, reading each weight once for all MB rows of
 * X. Rows past N or M are clamped to the last row (read, never written), so every load is in
 * bounds and the loops have no conditions.
 */
__kernel void gemv(__global const float *restrict X, __global const WT *restrict W,
                   __global const void *restrict S, __global float *restrict Y, uint M, uint N,
                   uint K)
{
    const uint r0 = get_global_id(0) * ROWS, m0 = get_global_id(1) * MB;
    if (r0 >= N || m0 >= M)
        return;
    uint row[ROWS];
    UNROLL for (uint r = 0; r < ROWS; r++)
        row[r] = min(r0 + r, N - 1);
    __global const float *x[MB];
    UNROLL for (uint b = 0; b < MB; b++)
        x[b] = X + (size_t)min(m0 + b, M - 1) * K;
    FV acc[ROWS][MB];
    UNROLL for (uint r = 0; r < ROWS; r++)
        UNROLL for (uint b = 0; b < MB; b++)
            acc[r][b] = (FV)(0.0f);
    float tail[ROWS][MB];
    UNROLL for (uint r = 0; r < ROWS; r++)
        UNROLL for (uint b = 0; b < MB; b++)
            tail[r][b] = 0.0f;

#if FMT <= 3
    __global const WT *w[ROWS];
    UNROLL for (uint r = 0; r < ROWS; r++)
        w[r] = W + (size_t)row[r] * K;
    const uint kv = K / VW * VW;
    for (uint k = 0; k < kv; k += VW) {
#if PF > 0
        UNROLL for (uint r = 0; r < ROWS; r++)
            PREFETCH(w[r] + k + PF / sizeof(WT));
#endif
        FV xv[MB];
        UNROLL for (uint b = 0; b < MB; b++)
            xv[b] = VLOADF(x[b] + k);
        UNROLL for (uint r = 0; r < ROWS; r++) {
            FV wv = WLOAD(w[r] + k);
            UNROLL for (uint b = 0; b < MB; b++)
                acc[r][b] = fma(wv, xv[b], acc[r][b]);
        }
    }
    for (uint k = kv; k < K; k++)
        UNROLL for (uint r = 0; r < ROWS; r++)
            UNROLL for (uint b = 0; b < MB; b++)
                tail[r][b] = fma(WLOAD1(w[r] + k), x[b][k], tail[r][b]);
#else
    /* GGUF blocks of 32 weights along k, one fp16 scale each (S). The block's products are
     * summed first, then scaled once: sum_j (q_j d) x_j = d sum_j q_j x_j. */
    const uint nb = K / 32;
    __global const ushort *s = (__global const ushort *)S;
    /* each row's blocks, addressed from its own base (no index arithmetic per block) */
    __global const uchar *wq[ROWS];
    UNROLL for (uint r = 0; r < ROWS; r++)
        wq[r] = W + (size_t)row[r] * nb * BLOCK_BYTES;
    FV acc2[ROWS][MB];
    UNROLL for (uint r = 0; r < ROWS; r++)
        UNROLL for (uint b = 0; b < MB; b++)
            acc2[r][b] = (FV)(0.0f);
    /* the scales of 16 blocks at a time, widened together */
    float ds[ROWS][16];
#if NEXT
    /* NEXT (CPU devices): while this item runs, prefetch the ROWS rows after its own (the
     * next item's on this thread when the runtime hands out consecutive items), at this
     * item's pace: a block row of a layer a few thousand wide is a few dozen cache lines,
     * gone before a stream of prefetches a fixed distance ahead has started. */
    const bool next = r0 + 2 * ROWS <= N;
    __global const uchar *wnext = W + (size_t)(r0 + ROWS) * nb * BLOCK_BYTES;
#endif
    for (uint b16 = 0; b16 < nb; b16 += 16) {
        const uint nbk = min(16u, nb - b16);
#if NEXT
        if (next)
            UNROLL for (uint r = 0; r < ROWS; r++)
                PREFETCH(s + (size_t)(row[r] + ROWS) * nb + b16);
#endif
        UNROLL for (uint r = 0; r < ROWS; r++) {
            __global const ushort *sr = s + (size_t)row[r] * nb + b16;
            if (nbk == 16) {
                const uint16 h = convert_uint16(vload16(0, sr));
                vstore16(h2f16(h), 0, ds[r]);
            } else {
                for (uint j = 0; j < nbk; j++) {
                    const uint h = sr[j];
                    ds[r][j] = h2f(h);
                }
            }
        }
        /* even and odd blocks into their own sums: two chains of dependent FMAs, not one */
        for (uint j = 0; j + 1 < nbk; j += 2) {
#if NEXT
            if (next)
                UNROLL for (uint l = 0; l < 2 * ROWS * BLOCK_BYTES; l += 64)
                    PREFETCH(wnext + (size_t)(b16 + j) * ROWS * BLOCK_BYTES + l);
#endif
            qblock(acc, wq, ds, x, b16 + j, j);
            qblock(acc2, wq, ds, x, b16 + j + 1, j + 1);
        }
        if (nbk % 2)
            qblock(acc, wq, ds, x, b16 + nbk - 1, nbk - 1);
    }
    UNROLL for (uint r = 0; r < ROWS; r++)
        UNROLL for (uint b = 0; b < MB; b++)
            acc[r][b] += acc2[r][b];
#endif

    UNROLL for (uint r = 0; r < ROWS; r++) {
#if FMT == 3
        const float scale = ((__global const float *)S)[row[r]];
#else
        const float scale = 1.0f;
#endif
        UNROLL for (uint b = 0; b < MB; b++)
            if (r0 + r < N && m0 + b < M)
                Y[(size_t)(m0 + b) * N + r0 + r] = (hsum(acc[r][b]) + tail[r][b]) * scale;
    }
}
#endif /* FMT */

/* =================================================================== attention */
#ifdef KVF
#define KVT CAT(FTYPE_, KVF)
#define KVLOAD(p) CAT(FLOAD_, KVF)(p)
#define NC (KD / VW) /* vectors per row of K, V, Q, O */
/* PF > 0: a prefetch PF bytes ahead of each K and V row read, every cache line of the row */
#if PF > 0
#define PREFETCH_ROW_TO(p, how)                                                                \
    UNROLL for (uint pc = 0; pc < KD * sizeof(KVT); pc += 64)                                  \
        how((__global const uchar *)(p) + pc)
#else
#define PREFETCH_ROW_TO(p, how)
#endif
#define PREFETCH_ROW(p) PREFETCH_ROW_TO(p, PREFETCH)

#if VW == 16
/* The lane sums of four vectors at once: halves added across pairs of vectors, then quarters
 * across all four, then pairs of lanes twice; fewer operations than four hsum()s, which each
 * reduce 16 lanes to one alone. */
static inline float4 hsum4(float16 a, float16 b, float16 c, float16 d)
{
    const float16 ab = (float16)(a.lo, b.lo) + (float16)(a.hi, b.hi);
    const float16 cd = (float16)(c.lo, d.lo) + (float16)(c.hi, d.hi);
    const float16 q = (float16)(ab.s0123, ab.s89ab, cd.s0123, cd.s89ab) +
                      (float16)(ab.s4567, ab.scdef, cd.s4567, cd.scdef);
    const float8 h = q.even + q.odd;
    return h.even + h.odd;
}
#else
static inline float4 hsum4(FV a, FV b, FV c, FV d)
{
    return (float4)(hsum(a), hsum(b), hsum(c), hsum(d));
}
#endif

/* A tile's values: o[r] += P(r, j) V[s + j] for its te positions, P(r, j) the softmax weight of
 * row r at position j of the tile (as the tile's scores are laid out). */
#define ATTEND_VALUES(R, o, vh, s, te, P)                                                      \
    ATTEND_VALUES_COLS(R, o, vh, s, te, P, NC, (vh) + (size_t)((s) + j) * KD + PF / sizeof(KVT), \
                       PREFETCH)
/* ... CB vectors of each row at a time (CB divides NC), so the sums being added fit in
 * registers: R x CB of them, the tile's V rows reread for each block (from the cache). With
 * PF > 0 the first block's pass prefetches, at its position j, the row AHEAD names (an
 * expression of j) by HOW, one cache line at a time. */
#define ATTEND_VALUES_COLS(R, o, vh, s, te, P, CB, AHEAD, HOW)                                 \
    UNROLL for (uint cb = 0; cb < NC; cb += (CB))                                              \
    for (uint j = 0; j < (te); j++) {                                                          \
        FV vr[CB];                                                                             \
        if (PF > 0 && cb == 0)                                                                 \
            PREFETCH_ROW_TO(AHEAD, HOW);                                                       \
        UNROLL for (uint c = 0; c < (CB); c++)                                                 \
            vr[c] = KVLOAD((vh) + (size_t)((s) + j) * KD + (cb + c) * VW);                     \
        UNROLL for (uint r = 0; r < (R); r++)                                                  \
            UNROLL for (uint c = 0; c < (CB); c++)                                             \
                o[r][cb + c] = fma((FV)(P(r, j)), vr[c], o[r][cb + c]);                        \
    }

/*
 * One online-softmax pass of R query rows q (pre-scaled by 1/sqrt(KD)) over positions
 * [s0, s1) of one KV head, TILE positions at a time (TILE a multiple of VW): the tile's
 * scores, then their softmax in vectors with one rescale of the running sums by
 * exp(old max - new max), then the tile's values. With MASK (1: prefill), row r sees
 * positions s <= lim[r] only (the causal mask); decode (0) sees every position it is given.
 * Without the mask, four rows' scores are reduced together (hsum4).
 * mx, sm: running max and sum of exp per row; o: the running sum of p V.
 */
#define ATTEND(R, MASK, q, o, mx, sm, kh, vh, s0, s1, lim)                                     \
    for (uint s = (s0); s < (s1); s += TILE) {                                                 \
        const uint te = min((uint)TILE, (s1) - s);                                             \
        float sc[R][TILE];                                                                     \
        if (te < TILE)                                                                         \
            UNROLL for (uint r = 0; r < R; r++)                                                \
                for (uint j = te; j < TILE; j++)                                               \
                    sc[r][j] = -INFINITY;                                                      \
        for (uint j = 0; j < te; j++) {                                                        \
            FV kr[NC];                                                                         \
            if (PF > 0)                                                                        \
                PREFETCH_ROW((kh) + (size_t)(s + j) * KD + PF / sizeof(KVT));                  \
            UNROLL for (uint c = 0; c < NC; c++)                 \
                kr[c] = KVLOAD((kh) + (size_t)(s + j) * KD + c * VW);                          \
            FV a[R];                                                                           \
            UNROLL for (uint r = 0; r < R; r++) {                \
                a[r] = q[r][0] * kr[0];                                                        \
                UNROLL for (uint c = 1; c < NC; c++)             \
                    a[r] = fma(q[r][c], kr[c], a[r]);                                          \
            }                                                                                  \
            if (!(MASK) && (R) % 4 == 0) {                                                     \
                UNROLL for (uint r = 0; r < (R); r += 4) {                                     \
                    const float4 t = hsum4(a[r], a[r + 1], a[r + 2], a[r + 3]);                \
                    sc[r][j] = t.x;                                                            \
                    sc[r + 1][j] = t.y;                                                        \
                    sc[r + 2][j] = t.z;                                                        \
                    sc[r + 3][j] = t.w;                                                        \
                }                                                                              \
            } else {                                                                           \
                UNROLL for (uint r = 0; r < R; r++)              \
                    sc[r][j] = !(MASK) || s + j <= lim[r] ? hsum(a[r]) : -INFINITY;            \
            }                                                                                  \
        }                                                                                      \
        /* the softmax of the tile in VW-wide vectors (masked and missing scores are -inf) */  \
        UNROLL for (uint r = 0; r < R; r++) {                                                  \
            FV vm = VLOADF(&sc[r][0]);                                                         \
            for (uint j = VW; j < TILE; j += VW)                                               \
                vm = fmax(vm, VLOADF(&sc[r][j]));                                              \
            const float tm = fmax(mx[r], hmax(vm));                                            \
            /* a row that has seen no position yet (max -inf) takes weights exp(-inf) = 0 */   \
            const float base = tm == -INFINITY ? 0.0f : tm;                                    \
            const float corr = exp(mx[r] - base);                                              \
            mx[r] = tm;                                                                        \
            UNROLL for (uint c = 0; c < NC; c++)                                               \
                o[r][c] *= corr;                                                               \
            FV vs = (FV)(0.0f);                                                                \
            for (uint j = 0; j < TILE; j += VW) {                                              \
                const FV p = exp(VLOADF(&sc[r][j]) - base);                                    \
                VSTOREF(p, &sc[r][j]);                                                         \
                vs += p;                                                                       \
            }                                                                                  \
            sm[r] = sm[r] * corr + hsum(vs);                                                   \
        }                                                                                      \
        ATTEND_VALUES(R, o, vh, s, te, SC_ROW)                                                 \
    }
#define SC_ROW(r, j) sc[r][j]

#ifdef SPLIT
#if VW == 16 && G <= 16
/*
 * Decode on 16-lane vectors keeps a tile's scores position-major: sc[j * RW + r] is query
 * row r's score at position j, the G rows padded to RW (a power of two), so one vector holds
 * the scores of PP = 16 / RW positions. The dot products of PP positions (RW x PP = 16, the
 * padding rows' zero) are reduced into that vector at once (hsum16), and the tile's softmax
 * runs across positions in whole vectors: one exp for every row's rescale, no per-row lane
 * reductions.
 */
#define POSMAJOR 1
#if G == 1
#define RW 1
#elif G == 2
#define RW 2
#elif G <= 4
#define RW 4
#elif G <= 8
#define RW 8
#else
#define RW 16
#endif
#define PP (16 / RW)
#define SC_POS(r, j) sc[(j) * RW + (r)]
/* a tile row's value repeated over the PP positions of a score vector */
#if RW == 1
#define BASE16(v) ((float16)(v))
#elif RW == 2
#define BASE16(v) ((float16)((v), (v), (v), (v), (v), (v), (v), (v)))
#elif RW == 4
#define BASE16(v) ((float16)((v), (v), (v), (v)))
#elif RW == 8
#define BASE16(v) ((float16)((v), (v)))
#else
#define BASE16(v) (v)
#endif
#if RW == 1
#define RV float
#define LOAD_RV(p) (*(p))
#define STORE_RV(v, p) (*(p) = (v))
#else
#define RV CAT(float, RW)
#define LOAD_RV(p) CAT(vload, RW)(0, (p))
#define STORE_RV(v, p) CAT(vstore, RW)((v), 0, (p))
#endif

/* The lane sums of 16 vectors in one, lane i holding v[i]'s: each level adds pairs of
 * vectors' halves side by side, halving the lanes each vector's sum is spread over (8, 4, 2,
 * then 1), so 16 sums cost 15 additions. */
static inline float16 hsum16(const float16 v[16])
{
    float16 w[8], x[4], y[2];
    UNROLL for (uint i = 0; i < 8; i++)
        w[i] = (float16)(v[2 * i].lo, v[2 * i + 1].lo) + (float16)(v[2 * i].hi, v[2 * i + 1].hi);
    UNROLL for (uint i = 0; i < 4; i++) {
        const float16 a = w[2 * i], b = w[2 * i + 1];
        x[i] = (float16)(a.s0123, a.s89ab, b.s0123, b.s89ab) +
               (float16)(a.s4567, a.scdef, b.s4567, b.scdef);
    }
    UNROLL for (uint i = 0; i < 2; i++) {
        const float16 a = x[2 * i], b = x[2 * i + 1];
        y[i] = (float16)(a.s01, a.s45, a.s89, a.scd, b.s01, b.s45, b.s89, b.scd) +
               (float16)(a.s23, a.s67, a.sab, a.sef, b.s23, b.s67, b.sab, b.sef);
    }
    return (float16)(y[0].even, y[1].even) + (float16)(y[0].odd, y[1].odd);
}

/* Lane r: f over lanes r, r + RW, r + 2 RW, ... of v (row r's at each of the PP positions). */
#define FOLD(name, f)                                                                          \
    static inline RV name(float16 v)                                                           \
    {                                                                                          \
        float l[16];                                                                           \
        vstore16(v, 0, l);                                                                     \
        UNROLL for (uint w = 8; w >= RW; w /= 2)                                               \
            UNROLL for (uint i = 0; i < w; i++)                                                \
                l[i] = f(l[i], l[i + w]);                                                      \
        return LOAD_RV(l);                                                                     \
    }
#define ADD(a, b) ((a) + (b))
FOLD(fold_max, fmax)
FOLD(fold_sum, ADD)

#ifndef QK
#define QK 0
#endif
#if QK && RW >= 2 && RW <= 8
/*
 * Scores without lane reductions (2 <= RW <= 8): lane PP r + p of a vector holds query row r's
 * products over the dims congruent to p mod PP. Query row r's dims PP i .. PP i + PP - 1 sit
 * in lanes PP r .. PP r + PP - 1 of qi[i]; the PP K values of those dims, widened once into
 * the tile's kf rows, are broadcast to every row's lanes, so one multiply-add serves all rows.
 * A score is then the sum of PP adjacent lanes, and PP positions' vectors fold into one
 * (pair16, log2 PP times) in the tile's layout, lane p RW + r.
 */
#define BCQK 1
#define QI (KD / PP)
#define VLINES ((16 * KD * sizeof(KVT) / 64 + QI - 1) / QI) /* V lines per step of QI */
#if PP == 2
#define BCAST(p)                                                                               \
    ((float16)(vload2(0, p), vload2(0, p), vload2(0, p), vload2(0, p), vload2(0, p), vload2(0, p), \
               vload2(0, p), vload2(0, p)))
#elif PP == 4
#define BCAST(p) ((float16)(vload4(0, p), vload4(0, p), vload4(0, p), vload4(0, p)))
#else
#define BCAST(p) ((float16)(vload8(0, p), vload8(0, p)))
#endif
static inline float16 pair16(float16 a, float16 b)
{
    return (float16)(a.even, b.even) + (float16)(a.odd, b.odd);
}
#endif
/* value vectors per row added at a time: with qk 1 at most 16 running sums in registers */
#if !BCQK || G * NC <= 16
#define VCB NC
#elif NC % 2 == 0 && G * (NC / 2) <= 16
#define VCB (NC / 2)
#elif NC % 4 == 0 && G * (NC / 4) <= 16
#define VCB (NC / 4)
#elif NC % 8 == 0 && G * (NC / 8) <= 16
#define VCB (NC / 8)
#else
#define VCB 1
#endif
#endif

/*
 * Decode: the PARTS work-groups (global (SPLIT x PARTS, M / G), local (SPLIT, 1)) of KV head h
 * serve its G query rows, so K and V are read once for all of them; work-group part takes the
 * part-th of PARTS consecutive slices of the N positions, and its SPLIT items consecutive
 * slices of that. The items' partial (max, sum, sum of p V) meet in local memory and are
 * merged, each item taking every SPLIT-th output element. With one part that is the output;
 * with several, each work-group leaves its merged partial in PS (per head and part: G maxima,
 * G sums, G x KD weighted values) and counts itself done in PC[h]; the last of the head's
 * parts to finish merges them all into the output and sets PC[h] back to 0 for the next
 * launch.
 */
#ifndef PARTS
#define PARTS 1
#endif
#if PARTS > 1
#define PARTS_ARGS , __global float *PS, volatile __global uint *PC
#else
#define PARTS_ARGS
#endif
__kernel void attn_decode(__global const float *restrict Q, __global const KVT *restrict K,
                          __global const KVT *restrict V, __global float *restrict O, uint M,
                          uint N, uint KDIM PARTS_ARGS)
{
    __local float lmax[SPLIT][G], lsum[SPLIT][G];
    __local float lo[SPLIT][G][KD];
    const uint t = get_local_id(0), h = get_group_id(1);
    const float scale = 1.0f / sqrt((float)KD);
    FV q[G][NC], o[G][NC];
    float mx[G], sm[G];
    uint lim[G];
    UNROLL for (uint r = 0; r < G; r++) {
        UNROLL for (uint c = 0; c < NC; c++) {
            q[r][c] = VLOADF(Q + (size_t)(h * G + r) * KD + c * VW) * scale;
            o[r][c] = (FV)(0.0f);
        }
        mx[r] = -INFINITY;
        sm[r] = 0.0f;
        lim[r] = N - 1;
    }
    const uint part = get_group_id(0), pchunk = (N + PARTS - 1) / PARTS;
    const uint p0 = min(N, part * pchunk), p1 = min(N, p0 + pchunk);
    const uint chunk = (p1 - p0 + SPLIT - 1) / SPLIT;
    const uint s0 = min(p1, p0 + t * chunk), s1 = min(p1, s0 + chunk);
    __global const KVT *kh = K + (size_t)h * N * KD, *vh = V + (size_t)h * N * KD;
#if POSMAJOR
    RV mxv = (RV)(-INFINITY), smv = (RV)(0.0f);
    float sc[TILE * RW];
#if BCQK
    float16 qi[QI];
    for (uint i = 0; i < QI; i++) {
        float l[16];
        UNROLL for (uint r = 0; r < RW; r++)
            UNROLL for (uint p = 0; p < PP; p++)
                l[r * PP + p] = r < G ? Q[(size_t)(h * G + r) * KD + i * PP + p] * scale : 0.0f;
        qi[i] = vload16(0, l);
    }
    float kf[TILE * KD];
#endif
    for (uint s = s0; s < s1; s += TILE) {
        const uint te = min((uint)TILE, s1 - s);
#if BCQK
        /* the tile's K rows widened, whole blocks of 16 (past s1 the last row again, its
         * scores then replaced by -inf) */
        const uint tb = (te + 15) & ~15u;
        for (uint j = 0; j < tb; j++) {
            __global const KVT *kp = kh + (size_t)min(s + j, s1 - 1) * KD;
            UNROLL for (uint c = 0; c < NC; c++)
                VSTOREF(KVLOAD(kp + c * VW), kf + j * KD + c * VW);
        }
        for (uint j0 = 0; j0 < tb; j0 += 16) {
            float16 a[16];
            UNROLL for (uint b = 0; b < 16; b++)
                a[b] = (float16)(0.0f);
            /* the block's V rows fetched while its scores are computed, spread over them */
            __global const uchar *vb =
                (__global const uchar *)(vh + (size_t)min(s + j0, s1 - 1) * KD);
            for (uint i = 0; i < QI; i++) {
                const float16 qv = qi[i];
                if (PF > 0)
                    UNROLL for (uint l = 0; l < VLINES; l++)
                        PREFETCH_L2(vb + (i * VLINES + l) * 64);
                UNROLL for (uint b = 0; b < 16; b++)
                    a[b] = fma(qv, BCAST(kf + (j0 + b) * KD + i * PP), a[b]);
            }
            UNROLL for (uint v = 0; v < 16 / PP; v++) {
                float16 *av = a + v * PP;
                UNROLL for (uint w = PP / 2; w >= 1; w /= 2)
                    UNROLL for (uint i = 0; i < w; i++)
                        av[i] = pair16(av[2 * i], av[2 * i + 1]);
                vstore16(av[0], 0, sc + (j0 + v * PP) * RW);
            }
        }
#else
        /* the scores of PP positions at a time (past s1 the last position again, its
         * scores then replaced by -inf) */
        for (uint j = 0; j < te; j += PP) {
            float16 a[16];
            UNROLL for (uint p = 0; p < PP; p++) {
                __global const KVT *kp = kh + (size_t)min(s + j + p, s1 - 1) * KD;
                if (PF > 0)
                    PREFETCH_ROW(kp + PF / sizeof(KVT));
                FV kr[NC];
                UNROLL for (uint c = 0; c < NC; c++)
                    kr[c] = KVLOAD(kp + c * VW);
                UNROLL for (uint r = 0; r < RW; r++) {
                    a[p * RW + r] = r < G ? q[r][0] * kr[0] : (FV)(0.0f);
                    if (r < G)
                        UNROLL for (uint c = 1; c < NC; c++)
                            a[p * RW + r] = fma(q[r][c], kr[c], a[p * RW + r]);
                }
            }
            vstore16(hsum16(a), 0, sc + j * RW);
        }
#endif
        for (uint i = te * RW; i < TILE * RW; i++)
            sc[i] = -INFINITY;
        float16 vm = vload16(0, sc);
        for (uint i = 1; i < TILE * RW / 16; i++)
            vm = fmax(vm, vload16(i, sc));
        const RV tm = fmax(mxv, fold_max(vm));
        /* a row that has seen no position yet (max -inf) takes weights exp(-inf) = 0 */
        const RV base = tm == -INFINITY ? (RV)(0.0f) : tm;
        const RV corr = exp(mxv - base);
        mxv = tm;
        float cr[RW];
        STORE_RV(corr, cr);
        UNROLL for (uint r = 0; r < G; r++)
            UNROLL for (uint c = 0; c < NC; c++)
                o[r][c] *= cr[r];
        const float16 b16 = BASE16(base);
        float16 vs = (float16)(0.0f);
        for (uint i = 0; i < TILE * RW / 16; i++) {
            const float16 pv = exp(vload16(i, sc) - b16);
            vstore16(pv, i, sc);
            vs += pv;
        }
        smv = smv * corr + fold_sum(vs);
#if BCQK
        /* the next tile's K rows fetched while this tile's values are added */
        ATTEND_VALUES_COLS(G, o, vh, s, te, SC_POS, VCB,
                           kh + (size_t)min(s + TILE + j, s1 - 1) * KD, PREFETCH_L2)
#else
        ATTEND_VALUES_COLS(G, o, vh, s, te, SC_POS, VCB,
                           vh + (size_t)(s + j) * KD + PF / sizeof(KVT), PREFETCH)
#endif
    }
    {
        float mxa[RW], sma[RW];
        STORE_RV(mxv, mxa);
        STORE_RV(smv, sma);
        UNROLL for (uint r = 0; r < G; r++) {
            mx[r] = mxa[r];
            sm[r] = sma[r];
        }
    }
#else
    ATTEND(G, 0, q, o, mx, sm, kh, vh, s0, s1, lim)
#endif
    UNROLL for (uint r = 0; r < G; r++) {
        lmax[t][r] = mx[r];
        lsum[t][r] = sm[r];
        UNROLL for (uint c = 0; c < NC; c++)
            VSTOREF(o[r][c], &lo[t][r][c * VW]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = t; i < G * KD; i += SPLIT) {
        const uint r = i / KD, c = i % KD;
        float gm = -INFINITY;
        for (uint u = 0; u < SPLIT; u++)
            gm = fmax(gm, lmax[u][r]);
        float den = 0.0f, num = 0.0f;
        for (uint u = 0; u < SPLIT; u++) {
            /* an empty slice (max -inf) weighs exp(-inf) = 0 */
            const float wgt = lmax[u][r] == -INFINITY ? 0.0f : exp(lmax[u][r] - gm);
            den += lsum[u][r] * wgt;
            num += lo[u][r][c] * wgt;
        }
#if PARTS > 1
        __global float *ps = PS + ((size_t)h * PARTS + part) * G * (KD + 2);
        ps[2 * G + i] = num;
        if (c == 0) {
            ps[r] = gm;
            ps[G + r] = den;
        }
#else
        O[(size_t)(h * G + r) * KD + c] = num / den;
#endif
    }
#if PARTS > 1
    /* every item's partial written before the count; the last part sees them all */
    __local uint last;
    write_mem_fence(CLK_GLOBAL_MEM_FENCE);
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (t == 0)
        last = atomic_inc(&PC[h]) == PARTS - 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!last)
        return;
    read_mem_fence(CLK_GLOBAL_MEM_FENCE);
    volatile __global const float *hp = PS + (size_t)h * PARTS * G * (KD + 2);
    for (uint i = t; i < G * KD; i += SPLIT) {
        const uint r = i / KD;
        float gm = -INFINITY;
        for (uint u = 0; u < PARTS; u++)
            gm = fmax(gm, hp[u * G * (KD + 2) + r]);
        float den = 0.0f, num = 0.0f;
        for (uint u = 0; u < PARTS; u++) {
            volatile __global const float *ps = hp + u * G * (KD + 2);
            /* a part with no positions (max -inf) weighs 0 */
            const float wgt = ps[r] == -INFINITY ? 0.0f : exp(ps[r] - gm);
            den += ps[G + r] * wgt;
            num += ps[2 * G + i] * wgt;
        }
        O[(size_t)(h * G) * KD + i] = num / den;
    }
    if (t == 0)
        PC[h] = 0;
#endif
}
#endif /* SPLIT */

#ifdef BQ
/*
 * Prefill: item (i, j) of global (ceil(N / BQ), M) takes query positions i*BQ .. i*BQ+BQ-1 of
 * head j against KV head j / G, positions 0 .. its last query's, causally masked per row.
 * Rows past N are clamped to the last (computed, never written).
 */
__kernel void attn_prefill(__global const float *restrict Q, __global const KVT *restrict K,
                           __global const KVT *restrict V, __global float *restrict O, uint M,
                           uint N, uint KDIM)
{
    const uint t0 = get_global_id(0) * BQ, head = get_global_id(1);
    if (t0 >= N || head >= M)
        return;
    const uint h = head / G;
    const float scale = 1.0f / sqrt((float)KD);
    FV q[BQ][NC], o[BQ][NC];
    float mx[BQ], sm[BQ];
    uint lim[BQ];
    UNROLL for (uint r = 0; r < BQ; r++) {
        lim[r] = min(t0 + r, N - 1);
        UNROLL for (uint c = 0; c < NC; c++) {
            q[r][c] = VLOADF(Q + ((size_t)head * N + lim[r]) * KD + c * VW) * scale;
            o[r][c] = (FV)(0.0f);
        }
        mx[r] = -INFINITY;
        sm[r] = 0.0f;
    }
    const uint s1 = min(N, t0 + BQ);
    __global const KVT *kh = K + (size_t)h * N * KD, *vh = V + (size_t)h * N * KD;
    ATTEND(BQ, 1, q, o, mx, sm, kh, vh, 0u, s1, lim)
    UNROLL for (uint r = 0; r < BQ; r++) {
        const float inv = 1.0f / sm[r];
        if (t0 + r < N)
            UNROLL for (uint c = 0; c < NC; c++)
                VSTOREF(o[r][c] * inv, O + ((size_t)head * N + t0 + r) * KD + c * VW);
    }
}
#endif /* BQ */
#endif /* KVF */

/* ================================================================= small ops */
#ifdef SMALL

/* Y = X / sqrt(mean(X^2) + 1e-6) * W, one row per item (global (M)). */
__kernel void rmsnorm(__global const float *restrict X, __global const float *restrict W,
                      __global float *restrict Y, uint M, uint N)
{
    const uint i = get_global_id(0);
    if (i >= M)
        return;
    __global const float *x = X + (size_t)i * N;
    __global float *y = Y + (size_t)i * N;
    const uint nv = N / VW * VW;
    FV acc = (FV)(0.0f);
    for (uint j = 0; j < nv; j += VW) {
        FV v = VLOADF(x + j);
        acc = fma(v, v, acc);
    }
    float ss = hsum(acc);
    for (uint j = nv; j < N; j++)
        ss = fma(x[j], x[j], ss);
    const float r = 1.0f / sqrt(ss / (float)N + 1e-6f);
    for (uint j = 0; j < nv; j += VW)
        VSTOREF(VLOADF(x + j) * r * VLOADF(W + j), y + j);
    for (uint j = nv; j < N; j++)
        y[j] = x[j] * r * W[j];
}

/* NeoX rotary embedding: item (j, i) of global (N / 2, M) rotates pair (j, j + N/2) of row i. */
__kernel void rope(__global const float *restrict X, __global float *restrict Y, uint M, uint N,
                   uint pos0)
{
    /* one item per (token, pair j): the angle and its sine and cosine once, applied to the
     * token's G rows (its heads), which share the position */
    const uint j = get_global_id(0), t = get_global_id(1), half_n = N / 2;
    if (j >= half_n || t >= M / G)
        return;
    const float pos = (float)(pos0 + t);
    const float a = pos * pow(10000.0f, -2.0f * (float)j / (float)N);
    float c;
    const float s = sincos(a, &c);
    for (uint h = 0; h < G; h++) {
        const size_t row = ((size_t)t * G + h) * N;
        const float x0 = X[row + j], x1 = X[row + j + half_n];
        Y[row + j] = x0 * c - x1 * s;
        Y[row + j + half_n] = x0 * s + x1 * c;
    }
}

/* Elementwise over T = M*N floats, VW per item (global ceil(T / VW)), the last item's tail
 * one at a time. */
#define ELEMENTWISE(name, expr)                                                                \
    __kernel void name(__global const float *restrict A, __global const float *restrict B,     \
                       __global float *restrict Y, uint M, uint N)                             \
    {                                                                                          \
        const size_t total = (size_t)M * N, i = get_global_id(0) * (size_t)VW;                 \
        if (i + VW <= total) {                                                                 \
            FV a = VLOADF(A + i), b = VLOADF(B + i);                                           \
            VSTOREF(expr, Y + i);                                                              \
        } else {                                                                               \
            for (size_t e = i; e < total; e++) {                                               \
                float a = A[e], b = B[e];                                                      \
                Y[e] = expr;                                                                   \
            }                                                                                  \
        }                                                                                      \
    }
ELEMENTWISE(swiglu, a / (1.0f + exp(-a)) * b)
ELEMENTWISE(add, a + b)

/* L[i] = log(sum_j exp(X[i][j])) - X[i][T[i]], one row per item (global (M)): the row's max
 * first, so exp never overflows. */
__kernel void xent(__global const float *restrict X, __global const uint *restrict T,
                   __global float *restrict L, uint M, uint N)
{
    const uint i = get_global_id(0);
    if (i >= M)
        return;
    __global const float *x = X + (size_t)i * N;
    const uint nv = N / VW * VW;
    FV vm = (FV)(-INFINITY);
    for (uint j = 0; j < nv; j += VW)
        vm = fmax(vm, VLOADF(x + j));
    float mx = -INFINITY;
#if VW == 1
    mx = vm;
#else
    for (uint l = 0; l < VW; l++)
        mx = fmax(mx, ((float *)&vm)[l]);
#endif
    for (uint j = nv; j < N; j++)
        mx = fmax(mx, x[j]);
    FV acc = (FV)(0.0f);
    for (uint j = 0; j < nv; j += VW)
        acc += exp(VLOADF(x + j) - mx);
    float sum = hsum(acc);
    for (uint j = nv; j < N; j++)
        sum += exp(x[j] - mx);
    L[i] = log(sum) + mx - x[T[i]];
}
#endif /* SMALL */

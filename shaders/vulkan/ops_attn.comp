#version 450
/*
 * Attention with an online softmax, K and V in one format per build (-DFF_FP32, FF_FP16,
 * FF_BF16), read as uvec4 texels (FF_WIDE) or one element per R32 / R16 texel; Q through RGBA32F
 * (FF_WIDE) or R32F texels; head dim D.
 *   decode (FF_KERNEL_ATTN_DECODE): O[i] = softmax(Q[i] . K[h]^T / sqrt(D)) V[h], h = i / G,
 *     over N cached positions. A work-group takes GB query rows of one KV head (GB divides G).
 *   prefill (-DFF_PREFILL, FF_KERNEL_ATTN_PREFILL): causal, N tokens; a work-group takes GB
 *     consecutive query positions t0.. of one head (grid y: the head) and the keys s < t0 + GB,
 *     each query masked to s <= its own position.
 * Either way each K and V row is fetched once for the GB queries of the work-group, and the
 * invocations stride over the keys (neighbouring invocations, neighbouring rows: no two fetch
 * the same texel), each keeping an online softmax (running max, sum and output row in
 * registers); at the end the invocations' states are merged (subgroup max/add, then shared
 * memory across subgroups).
 *
 * The values-across-lanes decode build (FF_VLANES, wide texels only): the scores as above, a
 * position per invocation, but each subgroup takes its LS positions as a tile with one running
 * max per query row for the whole subgroup (raised when a score passes it by RESCALE), so the
 * probabilities of the tile can be spread over the lanes (subgroupShuffle) and the values summed
 * with the head dim across the lanes: lane j accumulates texels j, j + LS, ... of the output
 * rows. An invocation keeps GB x D / LS outputs instead of GB x D, and a work-group takes up to
 * 8 query rows. Needs a fixed subgroup size (LS).
 *
 * Decode may spread a KV head's positions over PARTS work-groups (grid y: the part, each a
 * consecutive slice): each leaves its merged partial (max, sum, weighted values of its rows) in
 * ps and counts itself done in pc (one count per grid x); the last of them to finish merges
 * every part into the output and sets the count back to 0 for the next dispatch.
 *
 * Specialization constants: 0 WG, 1 M, 2 N, 3 D (<= MAX_D), 4 G, 5 GB (<= MAX_GB), 6 LS (the
 * subgroup size, FF_VLANES; otherwise unused), 7 SGS (most subgroups a work-group may have),
 * 8 PARTS (decode; 1 in prefill).
 */
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
#if defined(FF_VLANES)
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_vote : require
#endif

/* MAX_D (-DMAX_D=...): the largest head dim of the build. Every build unrolls its head-dim
 * loops ([[unroll]]; the specialised D drops the copies past it), so the query and output rows
 * stay in registers. Left as loops, the generic build's rows stay arrays in memory: lavapipe
 * compiles it some 25 times slower at a small D, runs it slower, and at thousands of positions
 * got it wrong (doc/measurements/2026-12-06-measure-the-job-9.md). */

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 8;
layout(constant_id = 1) const uint M = 1;
layout(constant_id = 2) const uint N = 1;
layout(constant_id = 3) const uint D = 128;
layout(constant_id = 4) const uint G = 1;
layout(constant_id = 5) const uint GB = 1;
layout(constant_id = 6) const uint LS = 8;
layout(constant_id = 7) const uint SGS = 8;
layout(constant_id = 8) const uint PARTS = 1;

#if defined(FF_VLANES)
#define MAX_GB 8
#else
#define MAX_GB 4
#endif

layout(set = 0, binding = 0) uniform samplerBuffer q_tex;
layout(set = 0, binding = 1) uniform usamplerBuffer k_tex;
layout(set = 0, binding = 2) uniform usamplerBuffer v_tex;
layout(set = 0, binding = 3, std430) writeonly buffer Ob { float o_out[]; };
#if !defined(FF_PREFILL)
/* the parts' partials: per query row and part, max, sum and D weighted values; and a count per
 * work-group of query rows (a few bytes each when PARTS is 1) */
layout(set = 0, binding = 4, std430) coherent buffer Pb { float ps[]; };
layout(set = 0, binding = 5, std430) coherent buffer Cb { uint pc[]; };
shared bool sh_last;
#endif

#if defined(FF_FP32)
#define EPW 1
#else
#define EPW 2
#endif
#if defined(FF_WIDE)
#define MAX_EPT (4 * EPW) /* uvec4 texels: D a multiple of MAX_EPT */
#else
#define MAX_EPT 1 /* one element per texel (R32 / R16): any D */
#endif
#define RESCALE 8.0
const uint EPT = MAX_EPT; /* elements per texel */
const uint TPR = D / EPT; /* texels per row */

shared float sh_m[MAX_GB][SGS];
shared float sh_l[MAX_GB][SGS];
shared float sh_o[MAX_GB][SGS][MAX_D];

/* The elements of texel t of a K or V row. */
void unpack_texel(uvec4 t, out float e[MAX_EPT])
{
#if !defined(FF_WIDE)
#if defined(FF_FP32)
    e[0] = uintBitsToFloat(t.x);
#elif defined(FF_FP16)
    e[0] = unpackHalf2x16(t.x).x;
#else
    e[0] = uintBitsToFloat(t.x << 16);
#endif
#else
    [[unroll]] for (uint w = 0; w < 4; w++) {
#if defined(FF_FP32)
        e[w] = uintBitsToFloat(t[w]);
#elif defined(FF_FP16)
        vec2 h = unpackHalf2x16(t[w]);
        e[2 * w] = h.x;
        e[2 * w + 1] = h.y;
#else
        e[2 * w] = uintBitsToFloat(t[w] << 16);
        e[2 * w + 1] = uintBitsToFloat(t[w] & 0xffff0000u);
#endif
    }
#endif
}

#if defined(FF_PREFILL)
/* Query g of the work-group: position first + g of head gl_WorkGroupID.y (clamped to the
 * last; those beyond N store nothing). */
#define QROW(first, g) (gl_WorkGroupID.y * N + min((first) + (g), N - 1))
#else
#define QROW(first, g) ((first) + (g))
#endif

/* The GB query rows from first, times 1 / sqrt(D); rows and columns beyond them 0. */
void load_q(uint first, out float q[MAX_GB][MAX_D])
{
    const float scale = inversesqrt(float(D));
    [[unroll]] for (uint g = 0; g < MAX_GB; g++) {
#if defined(FF_WIDE) /* Q as RGBA32F texels: D is a multiple of 4 */
        [[unroll]] for (uint d = 0; d < MAX_D; d += 4) {
            vec4 t = g < GB && d < D ? texelFetch(q_tex, int((QROW(first, g) * D + d) / 4)) * scale
                                     : vec4(0.0);
            q[g][d] = t.x;
            q[g][d + 1] = t.y;
            q[g][d + 2] = t.z;
            q[g][d + 3] = t.w;
        }
#else
        [[unroll]] for (uint d = 0; d < MAX_D; d++)
            q[g][d] = g < GB && d < D ? texelFetch(q_tex, int(QROW(first, g) * D + d)).x * scale
                                      : 0.0;
#endif
    }
}

#if !defined(FF_PREFILL)
/* Query row `row`'s partial of this work-group's part: max m, sum l, weighted value v of
 * element d (m and l with d == 0). */
void store_part(uint row, uint d, float m, float l, float v)
{
    const uint at = (row * PARTS + gl_WorkGroupID.y) * (D + 2);
    ps[at + 2 + d] = v;
    if (d == 0) {
        ps[at] = m;
        ps[at + 1] = l;
    }
}

/* Every invocation's partial stored: count this part done; the last part to finish merges the
 * PARTS partials of the GB rows from row0 into the output. */
void finish_parts(uint row0, uint lid)
{
    memoryBarrierBuffer();
    barrier();
    if (lid == 0)
        sh_last = atomicAdd(pc[gl_WorkGroupID.x], 1u) == PARTS - 1;
    barrier();
    if (!sh_last)
        return;
    memoryBarrierBuffer();
    for (uint idx = lid; idx < GB * D; idx += WG) {
        const uint row = row0 + idx / D, d = idx % D;
        float m = -1.0 / 0.0;
        for (uint u = 0; u < PARTS; u++)
            m = max(m, ps[(row * PARTS + u) * (D + 2)]);
        float ls = 0.0, v = 0.0;
        for (uint u = 0; u < PARTS; u++) {
            const uint at = (row * PARTS + u) * (D + 2);
            /* a part with no positions (max -inf) weighs 0 */
            const float c = ps[at] == -1.0 / 0.0 ? 0.0 : exp(ps[at] - m);
            ls += ps[at + 1] * c;
            v += ps[at + 2 + d] * c;
        }
        o_out[row * D + d] = v / ls;
    }
    if (lid == 0)
        pc[gl_WorkGroupID.x] = 0;
}
#endif

/* After the barrier: the nsg subgroups' states of the GB rows from first (sh_m, sh_l, sh_o)
 * merged and the output rows written (decode with parts: the part's partial, then
 * finish_parts). */
void store_merged(uint first, uint lid, uint nsg)
{
    for (uint idx = lid; idx < GB * D; idx += WG) {
        uint g = idx / D, d = idx % D;
        float m = -1.0 / 0.0;
        for (uint s = 0; s < nsg; s++)
            m = max(m, sh_m[g][s]);
        float ls = 0.0, v = 0.0;
        for (uint s = 0; s < nsg; s++) {
            float c = sh_m[g][s] == -1.0 / 0.0 ? 0.0 : exp(sh_m[g][s] - m);
            ls += sh_l[g][s] * c;
            v += sh_o[g][s][d] * c;
        }
#if defined(FF_PREFILL)
        if (first + g < N)
            o_out[QROW(first, g) * D + d] = v / ls;
#else
        if (PARTS > 1)
            store_part(first + g, d, m, ls, v);
        else
            o_out[QROW(first, g) * D + d] = v / ls;
#endif
    }
#if !defined(FF_PREFILL)
    if (PARTS > 1)
        finish_parts(first, lid);
#endif
}

#if defined(FF_VLANES)
void main()
{
    const uint lid = gl_LocalInvocationID.x, lane = gl_SubgroupInvocationID;
    const uint sg = gl_SubgroupID, nsg = gl_NumSubgroups;
    const uint row0 = gl_WorkGroupID.x * GB; /* first query row */
    const uint kv0 = row0 / G * N * TPR;
    /* this part's positions: [p0, p1) */
    const uint pchunk = (N + PARTS - 1) / PARTS;
    const uint p0 = min(N, gl_WorkGroupID.y * pchunk), p1 = min(N, p0 + pchunk);
    /* The values' texels of a row per lane: lane j takes j, j + LS, ... (TPR a multiple of
     * LS; MIN_LS: the smallest subgroup the arrays are sized for). */
    const uint TL = (TPR + LS - 1) / LS;
#define MIN_LS 8
#define MAX_TL ((MAX_D / MAX_EPT + MIN_LS - 1) / MIN_LS)

    float q[MAX_GB][MAX_D];
    load_q(row0, q);
    float o[MAX_GB][MAX_TL * MAX_EPT];
    float mx[MAX_GB], l[MAX_GB]; /* mx: the subgroup's; l: this lane's positions' */
    [[unroll]] for (uint g = 0; g < MAX_GB; g++) {
        mx[g] = -1.0 / 0.0;
        l[g] = 0.0;
        [[unroll]] for (uint i = 0; i < MAX_TL * MAX_EPT; i++)
            o[g][i] = 0.0;
    }

    for (uint b = p0 + sg * LS; b < p1; b += nsg * LS) { /* a tile of LS positions a subgroup */
        const uint p = min(b + lane, p1 - 1);
        float s[MAX_GB];
        [[unroll]] for (uint g = 0; g < MAX_GB; g++)
            s[g] = 0.0;
        [[unroll]] for (uint t = 0; t < MAX_D / MAX_EPT; t++) {
            if (t < TPR) {
                float e[MAX_EPT];
                unpack_texel(texelFetch(k_tex, int(kv0 + p * TPR + t)), e);
                [[unroll]] for (uint j = 0; j < MAX_EPT; j++)
                    [[unroll]] for (uint g = 0; g < MAX_GB; g++)
                        if (g < GB)
                            s[g] = fma(q[g][t * EPT + j], e[j], s[g]);
            }
        }
        float pr[MAX_GB];
        [[unroll]] for (uint g = 0; g < MAX_GB; g++) {
            pr[g] = 0.0;
            if (g < GB) {
                const float sv = b + lane < p1 ? s[g] : -1.0 / 0.0;
                /* One max per row for the subgroup, raised (and the row rescaled) only when a
                 * score passes it by RESCALE: terms stay below e^RESCALE. */
                if (subgroupAny(sv > mx[g] + RESCALE)) {
                    const float m = subgroupMax(sv);
                    const float c = exp(mx[g] - m); /* 0 at the first tile */
                    l[g] *= c;
                    [[unroll]] for (uint i = 0; i < MAX_TL * MAX_EPT; i++)
                        o[g][i] *= c;
                    mx[g] = m;
                }
                pr[g] = exp(sv - mx[g]);
                l[g] += pr[g];
            }
        }
        /* The values of the tile, 8 positions at a time: lane j's texels of each position
         * times the position's probabilities (from its lane), summed apart from o and added
         * to it once (positions past p1 have probability 0 and read the last row again). */
        for (uint i0 = 0; i0 < LS; i0 += 8) {
            [[unroll]] for (uint k = 0; k < MAX_TL; k++) {
                if (k < TL) {
                    const uint t = lane + k * LS;
                    float acc[MAX_GB][MAX_EPT];
                    [[unroll]] for (uint g = 0; g < MAX_GB; g++)
                        [[unroll]] for (uint j = 0; j < MAX_EPT; j++)
                            acc[g][j] = 0.0;
                    [[unroll]] for (uint i = 0; i < 8; i++) {
                        float e[MAX_EPT];
                        const uint pos = min(b + i0 + i, p1 - 1);
                        unpack_texel(texelFetch(v_tex, int(kv0 + pos * TPR + t)), e);
                        [[unroll]] for (uint g = 0; g < MAX_GB; g++) {
                            if (g < GB) {
                                const float w = subgroupShuffle(pr[g], i0 + i);
                                [[unroll]] for (uint j = 0; j < MAX_EPT; j++)
                                    acc[g][j] = fma(w, e[j], acc[g][j]);
                            }
                        }
                    }
                    [[unroll]] for (uint g = 0; g < MAX_GB; g++)
                        [[unroll]] for (uint j = 0; j < MAX_EPT; j++)
                            o[g][k * MAX_EPT + j] += acc[g][j];
                }
            }
        }
    }

    /* Each subgroup's sum, then (several subgroups) shared memory across them. */
    [[unroll]] for (uint g = 0; g < MAX_GB; g++) {
        if (g < GB) {
            const float ls = subgroupAdd(l[g]);
            [[unroll]] for (uint k = 0; k < MAX_TL; k++) {
                const uint t = lane + k * LS;
                if (k < TL)
                    [[unroll]] for (uint j = 0; j < MAX_EPT; j++) {
                        if (WG > LS)
                            sh_o[g][sg][t * EPT + j] = o[g][k * MAX_EPT + j];
                        else if (PARTS > 1)
                            store_part(row0 + g, t * EPT + j, mx[g], ls, o[g][k * MAX_EPT + j]);
                        else
                            o_out[(row0 + g) * D + t * EPT + j] = o[g][k * MAX_EPT + j] / ls;
                    }
            }
            if (WG > LS && lane == 0) {
                sh_m[g][sg] = mx[g];
                sh_l[g][sg] = ls;
            }
        }
    }
    if (WG > LS) {
        barrier();
        store_merged(row0, lid, nsg);
    } else if (PARTS > 1) {
        finish_parts(row0, lid);
    }
}
#else
void main()
{
    const uint lid = gl_LocalInvocationID.x;
#if defined(FF_PREFILL)
    const uint t0 = gl_WorkGroupID.x * GB; /* first query position */
    const uint kvh = gl_WorkGroupID.y / G;
    const uint n_keys = min(t0 + GB, N); /* keys any of the GB queries sees */
#else
    const uint row0 = gl_WorkGroupID.x * GB; /* first query row */
    const uint kvh = row0 / G;
    /* this part's positions: [p_first, n_keys) */
    const uint pchunk = (N + PARTS - 1) / PARTS;
    const uint p_first = min(N, gl_WorkGroupID.y * pchunk);
    const uint n_keys = min(N, p_first + pchunk);
#endif

    float q[MAX_GB][MAX_D];
#if defined(FF_PREFILL)
    load_q(t0, q);
#else
    load_q(row0, q);
#endif
    float o[MAX_GB][MAX_D];
    float mx[MAX_GB], l[MAX_GB];
    [[unroll]] for (uint g = 0; g < MAX_GB; g++) {
        mx[g] = -1.0 / 0.0;
        l[g] = 0.0;
        [[unroll]] for (uint d = 0; d < MAX_D; d++)
            o[g][d] = 0.0;
    }

    const uint kv0 = kvh * N * TPR;
#if defined(FF_PREFILL)
    const uint p_first = 0;
#endif
    for (uint p = p_first + lid; p < n_keys; p += WG) {
        float s[MAX_GB];
        [[unroll]] for (uint g = 0; g < MAX_GB; g++)
            s[g] = 0.0;
        [[unroll]] for (uint t = 0; t < MAX_D / MAX_EPT; t++) {
            if (t < TPR) {
                float e[MAX_EPT];
                unpack_texel(texelFetch(k_tex, int(kv0 + p * TPR + t)), e);
                [[unroll]] for (uint j = 0; j < MAX_EPT; j++)
                    if (j < EPT && t * EPT + j < MAX_D)
                        [[unroll]] for (uint g = 0; g < MAX_GB; g++)
                            if (g < GB)
                                s[g] = fma(q[g][t * EPT + j], e[j], s[g]);
            }
        }
        float pr[MAX_GB];
        [[unroll]] for (uint g = 0; g < MAX_GB; g++) {
            pr[g] = 0.0;
#if defined(FF_PREFILL)
            if (g < GB && p <= t0 + g) { /* causal: query t0 + g sees keys up to itself */
#else
            if (g < GB) {
#endif
                /* Rescale only when the max has grown by more than RESCALE (then to the new
                 * max): terms stay below e^RESCALE, far from fp32's range, and the rescale,
                 * a pass over the whole output row, runs a few times instead of at every
                 * new maximum. */
                if (s[g] > mx[g] + RESCALE) {
                    float c = exp(mx[g] - s[g]);
                    l[g] *= c;
                    [[unroll]] for (uint d = 0; d < MAX_D; d++)
                        if (d < D)
                            o[g][d] *= c;
                    mx[g] = s[g];
                }
                pr[g] = exp(s[g] - mx[g]);
                l[g] += pr[g];
            }
        }
        [[unroll]] for (uint t = 0; t < MAX_D / MAX_EPT; t++) {
            if (t < TPR) {
                float e[MAX_EPT];
                unpack_texel(texelFetch(v_tex, int(kv0 + p * TPR + t)), e);
                [[unroll]] for (uint j = 0; j < MAX_EPT; j++)
                    if (j < EPT && t * EPT + j < MAX_D)
                        [[unroll]] for (uint g = 0; g < MAX_GB; g++)
                            if (g < GB)
                                o[g][t * EPT + j] = fma(pr[g], e[j], o[g][t * EPT + j]);
            }
        }
    }

    /* Merge the invocations' states: within each subgroup, then across subgroups. */
    const uint sg = gl_SubgroupID, nsg = gl_NumSubgroups;
    [[unroll]] for (uint g = 0; g < MAX_GB; g++) {
        if (g < GB) {
            float m = subgroupMax(mx[g]); /* -inf only in a part with no positions */
            float c = mx[g] == -1.0 / 0.0 ? 0.0 : exp(mx[g] - m);
            float ls = subgroupAdd(l[g] * c);
            if (gl_SubgroupInvocationID == 0) {
                sh_m[g][sg] = m;
                sh_l[g][sg] = ls;
            }
            [[unroll]] for (uint d = 0; d < MAX_D; d++)
                if (d < D) {
                    float v = subgroupAdd(o[g][d] * c);
                    if (gl_SubgroupInvocationID == 0)
                        sh_o[g][sg][d] = v;
                }
        }
    }
    barrier();
#if defined(FF_PREFILL)
    store_merged(t0, lid, nsg);
#else
    store_merged(row0, lid, nsg);
#endif
}
#endif

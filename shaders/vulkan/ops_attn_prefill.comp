#version 450
/*
 * Causal prefill attention (backend.h FF_KERNEL_ATTN_PREFILL): for head i and query t,
 * O[i][t] = softmax over s <= t of (Q[i][t] . K[h][s] / sqrt(D)) V[h][s], h = i / G.
 * K and V in one format per build (-DFF_FP32, FF_FP16, FF_BF16) as uvec4 texels (FF_WIDE) or
 * one element per R32 / R16 texel; Q through R32F texels; O a storage buffer.
 *
 * One invocation per (head, query): the work-group's WG neighbouring queries walk the keys in
 * the same order, so each K and V tile is fetched once into the cache and read by all of them;
 * each keeps an online softmax (running max, sum and output row in registers, rescaled only
 * when the max grows), so no score matrix is ever stored.
 *
 * Specialization constants: 0 WG, 1 M, 2 N, 3 D (<= MAX_D), 4 G.
 */
#extension GL_EXT_control_flow_attributes : require

/* MAX_D (-DMAX_D=...): the largest head dim of the build. The wide builds (FF_WIDE) unroll
 * the head dim so the query and output rows stay in registers; the generic build (one element
 * per texel, any D) leaves the loops to the driver. */
#if defined(FF_WIDE)
#define UNROLL [[unroll]]
#else
#define UNROLL
#endif

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 8;
layout(constant_id = 1) const uint M = 1;
layout(constant_id = 2) const uint N = 1;
layout(constant_id = 3) const uint D = 128;
layout(constant_id = 4) const uint G = 1;


layout(set = 0, binding = 0) uniform samplerBuffer q_tex;
layout(set = 0, binding = 1) uniform usamplerBuffer k_tex;
layout(set = 0, binding = 2) uniform usamplerBuffer v_tex;
layout(set = 0, binding = 3, std430) writeonly buffer Ob { float o_out[]; };

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
const uint EPT = MAX_EPT;
const uint TPR = D / EPT;

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

void main()
{
    const uint i = gl_WorkGroupID.y;
    /* queries beyond N repeat the last one and store nothing */
    const uint t_real = gl_GlobalInvocationID.x, t = min(t_real, N - 1);
    const uint h = i / G;
    const float scale = inversesqrt(float(D));

    float q[MAX_D], o[MAX_D];
    UNROLL for (uint d = 0; d < MAX_D; d++) {
        o[d] = 0.0;
        q[d] = d < D ? texelFetch(q_tex, int((i * N + t) * D + d)).x * scale : 0.0;
    }
    float mx = -1.0 / 0.0, l = 0.0;
    const uint kv0 = h * N * TPR;
    for (uint s = 0; s <= t; s++) {
        float sc = 0.0;
        UNROLL for (uint tt = 0; tt < MAX_D / MAX_EPT; tt++) {
            if (tt < TPR) {
                float e[MAX_EPT];
                unpack_texel(texelFetch(k_tex, int(kv0 + s * TPR + tt)), e);
                [[unroll]] for (uint j = 0; j < MAX_EPT; j++)
                    if (j < EPT && tt * EPT + j < MAX_D)
                        sc += q[tt * EPT + j] * e[j];
            }
        }
        /* Rescale only when the max has grown by more than RESCALE (see
         * ops_attn_decode.comp) */
        if (sc > mx + RESCALE) {
            float c = exp(mx - sc);
            l *= c;
            UNROLL for (uint d = 0; d < MAX_D; d++)
                if (d < D)
                    o[d] *= c;
            mx = sc;
        }
        float pr = exp(sc - mx);
        l += pr;
        UNROLL for (uint tt = 0; tt < MAX_D / MAX_EPT; tt++) {
            if (tt < TPR) {
                float e[MAX_EPT];
                unpack_texel(texelFetch(v_tex, int(kv0 + s * TPR + tt)), e);
                [[unroll]] for (uint j = 0; j < MAX_EPT; j++)
                    if (j < EPT && tt * EPT + j < MAX_D)
                        o[tt * EPT + j] += pr * e[j];
            }
        }
    }
    if (t_real < N) {
        float inv = 1.0 / l;
        UNROLL for (uint d = 0; d < MAX_D; d++)
            if (d < D)
                o_out[(i * N + t) * D + d] = o[d] * inv;
    }
}

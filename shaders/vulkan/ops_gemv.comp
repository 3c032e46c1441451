#version 450
/*
 * GEMV / small-m GEMM of a linear layer (backend.h FF_KERNEL_GEMV): Y[m][n] = X[m][k] W[n][k]^T,
 * W in one weight format per build (-DFF_FP32, FF_FP16, FF_BF16, FF_INT8, FF_Q8_0, FF_Q4_0),
 * fp32 activations and accumulation.
 *
 * Every input is read through a uniform texel buffer: on lavapipe a texel fetch gathers all
 * SIMD lanes at once where a storage-buffer load is a per-lane loop; on GPUs it is an ordinary
 * cached load. W is viewed as 32-bit words (1, 2 or 4 per texel, TW; int8 rows of 2 mod 4
 * bytes as 16-bit texels, TW = 0), quantised blocks as uvec4s; scales as R16 (fp16 bits) or
 * R32 (int8's fp32 per row); X as RG32F or RGBA32F.
 *
 * A work-group owns R rows of W and MT rows of X. Its WG invocations stride over the units of
 * a row (a unit: one texel of W, or one 32-weight block), so neighbouring invocations read
 * neighbouring texels; each unit of X is loaded once and used for all R rows. Partial sums
 * meet through subgroupAdd and, across subgroups, shared memory.
 *
 * Specialization constants: 0 WG, 1 M, 2 N, 3 K, 4 R (<= MAX_R), 5 MT (<= MAX_MT), 6 TW,
 * 7 XF (floats per X texel: 2 or 4), 8 SGS (most subgroups a work-group may have), 9 UC
 * (q8_0, q4_0: 1, or 4 consecutive blocks per invocation and step, their four scales fetched
 * as one R16G16B16A16 texel: a texel fetch costs the same whatever its width on lavapipe).
 */
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64;
layout(constant_id = 1) const uint M = 1;
layout(constant_id = 2) const uint N = 1;
layout(constant_id = 3) const uint K = 32;
layout(constant_id = 4) const uint R = 4;
layout(constant_id = 5) const uint MT = 1;
layout(constant_id = 6) const uint TW = 4;
layout(constant_id = 7) const uint XF = 4;
layout(constant_id = 8) const uint SGS = 8;
layout(constant_id = 9) const uint UC = 1;

#define MAX_R  16
#define MAX_MT 4

layout(set = 0, binding = 0) uniform samplerBuffer x_tex;
layout(set = 0, binding = 1) uniform usamplerBuffer w_tex;
layout(set = 0, binding = 2) uniform usamplerBuffer s_tex;
layout(set = 0, binding = 3, std430) writeonly buffer Yb { float y[]; };

#if defined(FF_Q4_0) || defined(FF_Q8_0)
#define MAX_E 32
const uint E = 32; /* elements per unit: one block */
#elif defined(FF_INT8)
#define MAX_E 16
const uint E = TW == 0 ? 2 : TW * 4;
#elif defined(FF_FP16) || defined(FF_BF16)
#define MAX_E 8
const uint E = TW * 2;
#else
#define MAX_E 4
const uint E = TW;
#endif
const uint UPR = K / E; /* units per row */

shared float red[MAX_R * MAX_MT][SGS];

float sx8(uint w, uint b) /* signed byte b of w */
{
    return float(int(w << (24 - 8 * b)) >> 24);
}

void main()
{
    const uint lid = gl_LocalInvocationID.x;
    const uint row0 = gl_WorkGroupID.x * R;
    const uint mrow0 = gl_WorkGroupID.y * MT;
    float acc[MAX_R][MAX_MT];
    [[unroll]] for (uint r = 0; r < MAX_R; r++)
        [[unroll]] for (uint i = 0; i < MAX_MT; i++)
            acc[r][i] = 0.0;

#if defined(FF_Q4_0) || defined(FF_Q8_0)
    const uint CU = UC; /* units per chunk */
#else
    const uint CU = 1;
#endif
    for (uint c = lid; c < UPR / CU; c += WG) {
#if defined(FF_Q4_0) || defined(FF_Q8_0)
    uvec4 sc[MAX_R]; /* UC = 4: the chunk's four scales per row */
    [[unroll]] for (uint r = 0; r < MAX_R; r++)
        if (r < R && CU == 4)
            sc[r] = texelFetch(s_tex, int((min(row0 + r, N - 1) * UPR + c * 4) / 4));
#endif
    [[unroll]] for (uint uu = 0; uu < 4; uu++) {
        if (uu < CU) {
        const uint u = c * CU + uu;
        float xv[MAX_MT][MAX_E];
        float sx[MAX_MT];
        [[unroll]] for (uint i = 0; i < MAX_MT; i++) {
            if (i < MT) {
                uint mr = min(mrow0 + i, M - 1);
                uint base = (mr * K + u * E) / XF;
                [[unroll]] for (uint j = 0; j < MAX_E / 2; j++) {
                    if (2 * j < E) {
                        if (XF == 4) {
                            if ((j & 1) == 0) {
                                vec4 t = texelFetch(x_tex, int(base + j / 2));
                                xv[i][2 * j] = t.x;
                                xv[i][2 * j + 1] = t.y;
                                xv[i][2 * j + 2] = t.z;
                                xv[i][2 * j + 3] = t.w;
                            }
                        } else {
                            vec4 t = texelFetch(x_tex, int(base + j));
                            xv[i][2 * j] = t.x;
                            xv[i][2 * j + 1] = t.y;
                        }
                    }
                }
#if defined(FF_Q4_0)
                /* Nibble j of a word is masked in place, not shifted down: its x is scaled by
                 * 2^-4j instead (exact: a power of two), once per unit for all R rows. */
                float s = 0.0;
                [[unroll]] for (uint j = 0; j < 32; j++)
                    s += xv[i][j];
                sx[i] = s;
                [[unroll]] for (uint wi = 0; wi < 4; wi++)
                    [[unroll]] for (uint b = 0; b < 4; b++) {
                        xv[i][4 * wi + b] *= exp2(-8.0 * float(b));
                        xv[i][16 + 4 * wi + b] *= exp2(-8.0 * float(b) - 4.0);
                    }
#endif
            }
        }
        [[unroll]] for (uint r = 0; r < MAX_R; r++) {
            if (r < R) {
                uint wr = min(row0 + r, N - 1);
                uint unit = wr * UPR + u;
#if defined(FF_Q4_0)
                uvec4 q = texelFetch(w_tex, int(unit));
                float d = unpackHalf2x16(CU == 4 ? sc[r][uu] : texelFetch(s_tex, int(unit)).x).x;
                [[unroll]] for (uint i = 0; i < MAX_MT; i++) {
                    if (i < MT) {
                        float dot = 0.0;
                        [[unroll]] for (uint wi = 0; wi < 4; wi++)
                            [[unroll]] for (uint b = 0; b < 4; b++) {
                                dot += float(q[wi] & (15u << (8 * b))) * xv[i][4 * wi + b];
                                dot += float(q[wi] & (240u << (8 * b))) * xv[i][16 + 4 * wi + b];
                            }
                        acc[r][i] += d * (dot - 8.0 * sx[i]);
                    }
                }
#elif defined(FF_Q8_0)
                uvec4 q0 = texelFetch(w_tex, int(2 * unit));
                uvec4 q1 = texelFetch(w_tex, int(2 * unit + 1));
                float d = unpackHalf2x16(CU == 4 ? sc[r][uu] : texelFetch(s_tex, int(unit)).x).x;
                [[unroll]] for (uint i = 0; i < MAX_MT; i++) {
                    if (i < MT) {
                        float dot = 0.0;
                        [[unroll]] for (uint wi = 0; wi < 4; wi++)
                            [[unroll]] for (uint b = 0; b < 4; b++) {
                                dot += sx8(q0[wi], b) * xv[i][4 * wi + b];
                                dot += sx8(q1[wi], b) * xv[i][16 + 4 * wi + b];
                            }
                        acc[r][i] += d * dot;
                    }
                }
#else
                uvec4 q = texelFetch(w_tex, int(unit));
                [[unroll]] for (uint i = 0; i < MAX_MT; i++) {
                    if (i < MT) {
                        float dot = 0.0;
#if defined(FF_INT8)
                        if (TW == 0) {
                            dot += sx8(q.x, 0) * xv[i][0] + sx8(q.x, 1) * xv[i][1];
                        } else {
                            [[unroll]] for (uint wi = 0; wi < 4; wi++)
                                if (wi < TW)
                                    [[unroll]] for (uint b = 0; b < 4; b++)
                                        dot += sx8(q[wi], b) * xv[i][4 * wi + b];
                        }
#elif defined(FF_FP16)
                        [[unroll]] for (uint wi = 0; wi < 4; wi++)
                            if (wi < TW) {
                                vec2 h = unpackHalf2x16(q[wi]);
                                dot += h.x * xv[i][2 * wi] + h.y * xv[i][2 * wi + 1];
                            }
#elif defined(FF_BF16)
                        [[unroll]] for (uint wi = 0; wi < 4; wi++)
                            if (wi < TW) {
                                dot += uintBitsToFloat(q[wi] << 16) * xv[i][2 * wi];
                                dot += uintBitsToFloat(q[wi] & 0xffff0000u) * xv[i][2 * wi + 1];
                            }
#else
                        [[unroll]] for (uint wi = 0; wi < 4; wi++)
                            if (wi < TW)
                                dot += uintBitsToFloat(q[wi]) * xv[i][wi];
#endif
                        acc[r][i] += dot;
                    }
                }
#endif
            }
        }
    }
    }
    }

    /* Sum over the work-group: subgroups first, then their partial sums. */
    [[unroll]] for (uint r = 0; r < MAX_R; r++)
        [[unroll]] for (uint i = 0; i < MAX_MT; i++)
            if (r < R && i < MT) {
                float v = subgroupAdd(acc[r][i]);
                if (gl_SubgroupInvocationID == 0)
                    red[r * MAX_MT + i][gl_SubgroupID] = v;
            }
    barrier();
    for (uint idx = lid; idx < R * MT; idx += WG) {
        uint r = idx / MT, i = idx % MT;
        float v = 0.0;
        for (uint s = 0; s < gl_NumSubgroups; s++)
            v += red[r * MAX_MT + i][s];
        uint row = row0 + r, mr = mrow0 + i;
        if (row < N && mr < M) {
#if defined(FF_INT8)
            v *= uintBitsToFloat(texelFetch(s_tex, int(row)).x);
#endif
            y[mr * N + row] = v;
        }
    }
}

#version 450
/*
 * The row-wise ops (backend.h), one work-group per row of N, -DFF_RMSNORM or -DFF_XENT:
 *   RMSNORM  Y[i][j] = X[i][j] / sqrt(mean_j(X[i][j]^2) + 1e-6) * W[j]
 *   XENT     L[i] = log(sum_j exp(X[i][j])) - X[i][T[i]], with the row max taken out first
 * Inputs through R32 texels, outputs to storage buffers; sums and maxima over the work-group
 * by subgroup operations, then shared memory across subgroups.
 * Specialization constants: 0 WG, 1 M, 2 N.
 */
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64;
layout(constant_id = 1) const uint M = 1;
layout(constant_id = 2) const uint N = 1;

layout(set = 0, binding = 0) uniform samplerBuffer x_tex;
#if defined(FF_RMSNORM)
layout(set = 0, binding = 1) uniform samplerBuffer w_tex;
layout(set = 0, binding = 2, std430) writeonly buffer Yb { float y[]; };
#else
layout(set = 0, binding = 1) uniform usamplerBuffer t_tex;
layout(set = 0, binding = 2, std430) writeonly buffer Lb { float loss[]; };
#endif

#define MAX_SG 64
shared float part[MAX_SG];

float wg_sum(float v)
{
    v = subgroupAdd(v);
    barrier(); /* part[] may still be read from the previous reduction */
    if (gl_SubgroupInvocationID == 0)
        part[gl_SubgroupID] = v;
    barrier();
    float s = 0.0;
    for (uint i = 0; i < gl_NumSubgroups; i++)
        s += part[i];
    return s;
}

float wg_max(float v)
{
    v = subgroupMax(v);
    barrier();
    if (gl_SubgroupInvocationID == 0)
        part[gl_SubgroupID] = v;
    barrier();
    float s = part[0];
    for (uint i = 1; i < gl_NumSubgroups; i++)
        s = max(s, part[i]);
    return s;
}

void main()
{
    const uint row = gl_WorkGroupID.x, lid = gl_LocalInvocationID.x;
    const uint base = row * N;
#if defined(FF_RMSNORM)
    float ss = 0.0;
    for (uint j = lid; j < N; j += WG) {
        float x = texelFetch(x_tex, int(base + j)).x;
        ss += x * x;
    }
    float inv = inversesqrt(wg_sum(ss) / float(N) + 1e-6);
    for (uint j = lid; j < N; j += WG)
        y[base + j] = texelFetch(x_tex, int(base + j)).x * inv * texelFetch(w_tex, int(j)).x;
#else
    float m = -1.0 / 0.0;
    for (uint j = lid; j < N; j += WG)
        m = max(m, texelFetch(x_tex, int(base + j)).x);
    m = wg_max(m);
    float s = 0.0;
    for (uint j = lid; j < N; j += WG)
        s += exp(texelFetch(x_tex, int(base + j)).x - m);
    s = wg_sum(s);
    if (lid == 0) {
        uint t = texelFetch(t_tex, int(row)).x;
        loss[row] = log(s) + m - texelFetch(x_tex, int(base + t)).x;
    }
#endif
}

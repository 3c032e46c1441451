#version 450
/*
 * The elementwise ops (backend.h) over M x N fp32, -DFF_ADD, -DFF_SWIGLU or -DFF_ROPE:
 *   ADD     Y = A + B
 *   SWIGLU  Y = G / (1 + exp(-G)) * U
 *   ROPE    NeoX pairs (j, j + N/2) of row i rotated by (pos0 + i / G) * 10000^(-2j/N)
 * Each invocation writes one element (ROPE: one pair), or V = 4 consecutive ones read as one
 * RGBA32F texel (ADD and SWIGLU with N a multiple of 4); inputs through R32F or RGBA32F texels.
 * Specialization constants: 0 WG, 1 M, 2 N, 3 G (ROPE rows per position), 4 V; push
 * constant: pos0 (ROPE).
 */
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64;
layout(constant_id = 1) const uint M = 1;
layout(constant_id = 2) const uint N = 1;
layout(constant_id = 3) const uint G = 1;
layout(constant_id = 4) const uint V = 1; /* ADD, SWIGLU: elements per invocation, 1 or 4 */
layout(push_constant) uniform P { uint m, n, pos0; } p;

layout(set = 0, binding = 0) uniform samplerBuffer a_tex;
#if defined(FF_ROPE)
layout(set = 0, binding = 1, std430) writeonly buffer Yb { float y[]; };
#else
layout(set = 0, binding = 1) uniform samplerBuffer b_tex;
layout(set = 0, binding = 2, std430) writeonly buffer Yb { float y[]; };
#endif

void main()
{
    /* 2-D grid: x over the row (or half row), y over rows, so no index passes 2^32 */
    const uint j = gl_GlobalInvocationID.x, i = gl_WorkGroupID.y;
#if defined(FF_ROPE)
    const uint h = N / 2;
    if (j >= h)
        return;
    float pos = float(p.pos0 + i / G);
    /* 10000^(-2j/N) = 2^(-2j/N * log2(10000)) */
    float a = pos * exp2(-float(2 * j) / float(N) * 13.287712379549449);
    float c = cos(a), s = sin(a);
    uint b = i * N + j;
    float x0 = texelFetch(a_tex, int(b)).x, x1 = texelFetch(a_tex, int(b + h)).x;
    y[b] = x0 * c - x1 * s;
    y[b + h] = x0 * s + x1 * c;
#else
    if (j * V >= N)
        return;
    uint e = i * N + j * V;
    vec4 a = texelFetch(a_tex, int(e / V)), b = texelFetch(b_tex, int(e / V));
#if defined(FF_ADD)
    vec4 r = a + b;
#else
    vec4 r = a / (1.0 + exp(-a)) * b;
#endif
    if (V == 4) {
        y[e] = r.x;
        y[e + 1] = r.y;
        y[e + 2] = r.z;
        y[e + 3] = r.w;
    } else {
        y[e] = r.x;
    }
#endif
}

#version 450
/*
 * Bandwidth kernels over n 32-bit words, one source compiled four times
 * (-DFF_READ, -DFF_WRITE, -DFF_COPY, -DFF_TRIAD). 16-byte accesses in a
 * grid-stride loop: invocation t handles vec4 t, t + T, t + 2T ... where T
 * is the total invocation count, so each pass over memory is contiguous
 * across the invocations of a wave.
 */
layout(local_size_x_id = 0) in;
layout(push_constant) uniform P { uint n4; uint value; } p;

#if defined(FF_READ)
layout(set = 0, binding = 0, std430) readonly buffer Src { uvec4 src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Out { uint outw[]; };
#elif defined(FF_WRITE)
layout(set = 0, binding = 0, std430) writeonly buffer Dst { uvec4 dst[]; };
#elif defined(FF_COPY)
layout(set = 0, binding = 0, std430) readonly buffer Src { uvec4 src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { uvec4 dst[]; };
#else
layout(set = 0, binding = 0, std430) writeonly buffer Ab { vec4 a[]; };
layout(set = 0, binding = 1, std430) readonly buffer Bb { vec4 b[]; };
layout(set = 0, binding = 2, std430) readonly buffer Cb { vec4 c[]; };
#endif

void main()
{
    uint t = gl_GlobalInvocationID.x;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
#if defined(FF_READ)
    uvec4 s = uvec4(0);
    for (uint i = t; i < p.n4; i += stride)
        s ^= src[i];
    outw[t] = s.x ^ s.y ^ s.z ^ s.w;
#elif defined(FF_WRITE)
    for (uint i = t; i < p.n4; i += stride)
        dst[i] = uvec4(p.value) ^ (uvec4(i * 4) + uvec4(0, 1, 2, 3));
#elif defined(FF_COPY)
    for (uint i = t; i < p.n4; i += stride)
        dst[i] = src[i];
#else
    for (uint i = t; i < p.n4; i += stride)
        a[i] = b[i] + 3.0 * c[i];
#endif
}

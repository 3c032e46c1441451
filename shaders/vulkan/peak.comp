#version 450
/*
 * Arithmetic peak (FF_KERNEL_PEAK), one source compiled three times (-DFF_FP32, -DFF_FP16,
 * -DFF_INT8): each invocation runs p.iters steps of 8 independent multiply-add chains,
 * x = x * a + b, and writes every lane's final value. fp32 chains are vec4, fp16 chains
 * f16vec2 (packed half maths where the hardware has it; a GPU's SIMT lanes and llvmpipe's SIMD
 * over invocations give the width; on llvmpipe vec4 read 46-48 GFLOP/s against vec2's 43 and
 * scalars' 34), int8 chains chars widened to int: a 32-bit unsigned multiply-add that wraps.
 * Lane i = invocation * 8 * VW + chain * VW + element starts at (i & 63) (fp) or i (int8);
 * out[i] is its final value (fp16 widened to float). The host repeats the same steps for a
 * sample of lanes (bench/families/suite_peak.c).
 */
#if defined(FF_FP16)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define VW 2
#define T  f16vec2
#elif defined(FF_INT8)
#define VW 1
#define T  uint
#else
#define VW 4
#define T  vec4
#endif

layout(local_size_x_id = 0) in;
layout(push_constant) uniform P { uint iters; uint a; uint b; } p;
#if defined(FF_INT8)
layout(set = 0, binding = 0, std430) writeonly buffer Out { uint outv[]; };
#else
layout(set = 0, binding = 0, std430) writeonly buffer Out { float outv[]; };
#endif

T start(uint i)
{
#if defined(FF_FP16)
    return T(float16_t(float(i & 63u)), float16_t(float((i + 1u) & 63u)));
#elif defined(FF_INT8)
    return i;
#else
    return T(float(i & 63u), float((i + 1u) & 63u), float((i + 2u) & 63u), float((i + 3u) & 63u));
#endif
}

void store(uint i, T x)
{
#if defined(FF_FP16)
    outv[i] = float(x.x);
    outv[i + 1u] = float(x.y);
#elif !defined(FF_INT8)
    outv[i] = x.x;
    outv[i + 1u] = x.y;
    outv[i + 2u] = x.z;
    outv[i + 3u] = x.w;
#else
    outv[i] = x;
#endif
}

#if defined(FF_INT8)
#define STEP(x) x = x * av + bv
#else
#define STEP(x) x = fma(x, av, bv)
#endif

/* One step of all eight chains (a block: it is a whole loop body below). */
#define STEP8() \
    { STEP(x0); STEP(x1); STEP(x2); STEP(x3); STEP(x4); STEP(x5); STEP(x6); STEP(x7); }

void main()
{
    uint base = gl_GlobalInvocationID.x * (8u * VW);
#if defined(FF_FP16)
    T av = T(float16_t(unpackHalf2x16(p.a).x)), bv = T(float16_t(unpackHalf2x16(p.b).x));
#elif defined(FF_INT8)
    T av = uint(bitfieldExtract(int(p.a), 0, 8)), bv = uint(bitfieldExtract(int(p.b), 0, 8));
#else
    T av = T(uintBitsToFloat(p.a)), bv = T(uintBitsToFloat(p.b));
#endif
    T x0 = start(base), x1 = start(base + VW), x2 = start(base + 2u * VW);
    T x3 = start(base + 3u * VW), x4 = start(base + 4u * VW), x5 = start(base + 5u * VW);
    T x6 = start(base + 6u * VW), x7 = start(base + 7u * VW);
    /* Eight steps per trip: llvmpipe's loop bookkeeping (the invocations' execution mask) is
     * paid per trip. On the CI Xeon, fp32 vec4 chains read 46-48 GFLOP/s at one step per trip,
     * 65-69 at two, 76 at four, 85 at eight and 67 at sixteen (the code no longer fits). */
    uint r = 0u;
    for (; r + 8u <= p.iters; r += 8u) {
        STEP8();
        STEP8();
        STEP8();
        STEP8();
        STEP8();
        STEP8();
        STEP8();
        STEP8();
    }
    for (; r < p.iters; r++)
        STEP8();

    store(base, x0);
    store(base + VW, x1);
    store(base + 2u * VW, x2);
    store(base + 3u * VW, x3);
    store(base + 4u * VW, x4);
    store(base + 5u * VW, x5);
    store(base + 6u * VW, x6);
    store(base + 7u * VW, x7);
}

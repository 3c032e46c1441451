/*
 * Arithmetic peak (FF_KERNEL_PEAK): each work-item runs ITERS steps of CHAINS independent
 * multiply-add chains on VW-wide vectors, x = x * a + b, and writes every lane's final value.
 *
 * Host build options: -DPREC=0 (fp32), 1 (fp16, needs cl_khr_fp16), 2 (int8: chars widened to
 * int, multiply-add in 32-bit unsigned wrap-around); -DVW=n vector width (2, 4, 8, 16).
 * Lane j of work-item g is lane i = g * CHAINS * VW + c * VW + v (chain c, element v); its
 * start value is (i & 63) for fp and i for int8, and out[i] its final value (fp16 widened to
 * float, int8 as the uint). The chains are independent so the FMA units, not their latency,
 * bound the rate; the host's reference repeats the same steps (bench/families/suite_peak.c).
 *
 * -DDOT=1 (int8, VW=16, x86 CPUs with AVX-512 VNNI; the host builds it only there): each step
 * is one 4-way byte dot product per lane instead, x += 4 * a * b (a's low byte unsigned, b's
 * signed, every byte of the operand the same), vpdpbusd through clang's builtin in a function
 * compiled for that feature: 8 operations per lane and step (backend.h FF_PEAK_DOT4).
 */
#ifndef DOT
#define DOT 0
#endif
#define CHAINS 8

#define CAT_(a, b) a##b
#define CAT(a, b)  CAT_(a, b)

#if PREC == 1
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define VT           CAT(half, VW)
#define START(i)     CAT(convert_, VT)((i) & 63)
#define SCALAR(bits) as_half((ushort)(bits))
#define STEP(x)      x = fma(x, av, bv)
#define OUTV(x)      CAT(convert_float, VW)(x)
typedef float OUT_T;
#elif PREC == 2
#define VT           CAT(uint, VW)
#define START(i)     (i)
#define SCALAR(bits) ((uint)(int)(char)(bits))
#define STEP(x)      x = x * av + bv
#define OUTV(x)      (x)
typedef uint OUT_T;
#else
#define VT           CAT(float, VW)
#define START(i)     CAT(convert_, VT)((i) & 63)
#define SCALAR(bits) as_float((uint)(bits))
#define STEP(x)      x = fma(x, av, bv)
#define OUTV(x)      (x)
typedef float OUT_T;
#endif

#if PREC == 2 && DOT
typedef int v16si __attribute__((vector_size(64)));

/* Eight chains of `iters` dot-product steps from lanes base .. base + 8 * 16. */
__attribute__((target("avx512vnni"), noinline))
static void dot_chains(__global int *restrict o, uint base, uint iters, int a4, int b4)
{
    const v16si av = {a4, a4, a4, a4, a4, a4, a4, a4, a4, a4, a4, a4, a4, a4, a4, a4};
    const v16si bv = {b4, b4, b4, b4, b4, b4, b4, b4, b4, b4, b4, b4, b4, b4, b4, b4};
    const v16si l = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    const int b0 = (int)base;
    v16si x0 = l + b0, x1 = l + (b0 + 16), x2 = l + (b0 + 32), x3 = l + (b0 + 48);
    v16si x4 = l + (b0 + 64), x5 = l + (b0 + 80), x6 = l + (b0 + 96), x7 = l + (b0 + 112);
    for (uint r = 0; r < iters; r++) {
        x0 = __builtin_ia32_vpdpbusd512(x0, av, bv);
        x1 = __builtin_ia32_vpdpbusd512(x1, av, bv);
        x2 = __builtin_ia32_vpdpbusd512(x2, av, bv);
        x3 = __builtin_ia32_vpdpbusd512(x3, av, bv);
        x4 = __builtin_ia32_vpdpbusd512(x4, av, bv);
        x5 = __builtin_ia32_vpdpbusd512(x5, av, bv);
        x6 = __builtin_ia32_vpdpbusd512(x6, av, bv);
        x7 = __builtin_ia32_vpdpbusd512(x7, av, bv);
    }
    const v16si *xs[8] = {&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7};
    for (int c = 0; c < 8; c++)
        for (int v = 0; v < 16; v++)
            o[c * 16 + v] = (*xs[c])[v];
}

__kernel void peak(__global uint *restrict out, uint iters, uint a, uint b)
{
    const uint base = (uint)get_global_id(0) * (CHAINS * 16);
    const int a4 = (int)((a & 0xffu) * 0x01010101u), b4 = (int)((b & 0xffu) * 0x01010101u);
    dot_chains((__global int *)out + base, base, iters, a4, b4);
}

#else

#if VW == 2
#define LANES (uint2)(0, 1)
#elif VW == 4
#define LANES (uint4)(0, 1, 2, 3)
#elif VW == 8
#define LANES (uint8)(0, 1, 2, 3, 4, 5, 6, 7)
#else
#define LANES (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#endif
#define UVT CAT(uint, VW)

__kernel void peak(__global OUT_T *restrict out, uint iters, uint a, uint b)
{
    const uint base = (uint)get_global_id(0) * (CHAINS * VW);
    const VT av = (VT)(SCALAR(a)), bv = (VT)(SCALAR(b));
    const UVT lane = LANES;
    VT x0 = START((UVT)(base + 0 * VW) + lane), x1 = START((UVT)(base + 1 * VW) + lane);
    VT x2 = START((UVT)(base + 2 * VW) + lane), x3 = START((UVT)(base + 3 * VW) + lane);
    VT x4 = START((UVT)(base + 4 * VW) + lane), x5 = START((UVT)(base + 5 * VW) + lane);
    VT x6 = START((UVT)(base + 6 * VW) + lane), x7 = START((UVT)(base + 7 * VW) + lane);
    for (uint r = 0; r < iters; r++) {
        STEP(x0);
        STEP(x1);
        STEP(x2);
        STEP(x3);
        STEP(x4);
        STEP(x5);
        STEP(x6);
        STEP(x7);
    }
    __global OUT_T *o = out + base;
    CAT(vstore, VW)(OUTV(x0), 0, o);
    CAT(vstore, VW)(OUTV(x1), 1, o);
    CAT(vstore, VW)(OUTV(x2), 2, o);
    CAT(vstore, VW)(OUTV(x3), 3, o);
    CAT(vstore, VW)(OUTV(x4), 4, o);
    CAT(vstore, VW)(OUTV(x5), 5, o);
    CAT(vstore, VW)(OUTV(x6), 6, o);
    CAT(vstore, VW)(OUTV(x7), 7, o);
}

#endif

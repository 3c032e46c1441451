/*
 * Bandwidth and latency kernels. n is a word count (uint32), a multiple of 1024.
 * READ: each work-item sums 16 uint4s, grid-strided (coalesced on GPUs), and
 * writes one word so the reads cannot be optimised away.
 */
#define READ_PER_ITEM 16

__kernel void mem_read(__global const uint4 *restrict src, __global uint *restrict out)
{
    const size_t g = get_global_id(0), stride = get_global_size(0);
    uint4 s = (uint4)(0);
    for (int j = 0; j < READ_PER_ITEM; j++)
        s ^= src[g + j * stride];
    out[g] = s.x ^ s.y ^ s.z ^ s.w;
}

__kernel void mem_write(__global uint4 *restrict dst, uint value)
{
    const uint g = (uint)get_global_id(0);
    const uint w = g * 4;
    dst[g] = (uint4)(value ^ w, value ^ (w + 1), value ^ (w + 2), value ^ (w + 3));
}

__kernel void mem_copy(__global const uint4 *restrict src, __global uint4 *restrict dst)
{
    const size_t g = get_global_id(0);
    dst[g] = src[g];
}

__kernel void mem_triad(__global float4 *restrict a, __global const float4 *restrict b,
                        __global const float4 *restrict c)
{
    const size_t g = get_global_id(0);
    a[g] = b[g] + 3.0f * c[g];
}

__kernel void empty(void)
{
}

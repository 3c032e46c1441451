/*
 * Bandwidth and latency kernels. n is a word count (uint32), a multiple of 1024.
 *
 * Two layouts of the same maths, chosen by the host at build time:
 * - GPUs (default): one uint4 per work-item and pass, consecutive work-items
 *   on consecutive addresses (coalesced). READ: each work-item XORs 16 uint4s
 *   grid-strided and writes one word.
 * - CPU devices (-DFF_MEM_CPU_WORDS=W): each work-item streams W contiguous
 *   words with uint16 (64-byte, a cache line) vectors. PoCL runs work-items of a group in a
 *   loop on one core, so contiguous blocks keep every core on one stream the
 *   prefetchers follow; a grid stride scatters them. READ writes one word per
 *   work-item.
 * READ writes an XOR reduction either way: the XOR of all out words equals the
 * XOR of all source words, which is what the host checks.
 */
#ifdef FF_MEM_CPU_WORDS
#define V16 (FF_MEM_CPU_WORDS / 16) /* uint16 vectors (one cache line) per work-item */

__kernel void mem_read(__global const uint16 *restrict src, __global uint *restrict out)
{
    const size_t g = get_global_id(0);
    __global const uint16 *p = src + g * V16;
    uint16 s0 = (uint16)(0), s1 = (uint16)(0);
    for (int j = 0; j < V16; j += 2) {
        s0 ^= p[j];
        s1 ^= p[j + 1];
    }
    s0 ^= s1;
    uint8 s8 = s0.lo ^ s0.hi;
    uint4 s = s8.lo ^ s8.hi;
    out[g] = s.x ^ s.y ^ s.z ^ s.w;
}

__kernel void mem_write(__global uint16 *restrict dst, uint value)
{
    const uint g = (uint)get_global_id(0);
    __global uint16 *p = dst + (size_t)g * V16;
    uint16 w = (uint16)(g * FF_MEM_CPU_WORDS) +
               (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (int j = 0; j < V16; j++) {
        p[j] = (uint16)(value) ^ w;
        w += (uint16)(16);
    }
}

__kernel void mem_copy(__global const uint16 *restrict src, __global uint16 *restrict dst)
{
    const size_t base = get_global_id(0) * V16;
    for (int j = 0; j < V16; j++)
        dst[base + j] = src[base + j];
}

__kernel void mem_triad(__global float16 *restrict a, __global const float16 *restrict b,
                        __global const float16 *restrict c)
{
    const size_t base = get_global_id(0) * V16;
    for (int j = 0; j < V16; j++)
        a[base + j] = b[base + j] + 3.0f * c[base + j];
}

#else
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
#endif

__kernel void empty(void)
{
}

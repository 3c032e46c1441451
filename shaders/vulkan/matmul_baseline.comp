#version 450
/*
 * The simple 8x8 register-tiled fp32 matmul, kept only as the benchmark's
 * baseline (tests/vulkan/bench_matmul.c): each invocation computes an 8x8
 * block of C with scalar loads, sizes from push constants. Not used by
 * flopfit bench.
 */
layout(local_size_x = 8, local_size_y = 8) in;
layout(push_constant) uniform P { uint M, N, K; } p;
layout(set = 0, binding = 0, std430) readonly buffer Ab { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer Bb { float b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Cb { float c[]; };

void main()
{
    uint row0 = gl_GlobalInvocationID.y * 8, col0 = gl_GlobalInvocationID.x * 8;
    float acc[8][8];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.0;
    for (uint k = 0; k < p.K; k++) {
        float av[8], bv[8];
        for (int i = 0; i < 8; i++)
            av[i] = a[min(row0 + i, p.M - 1) * p.K + k];
        for (int j = 0; j < 8; j++)
            bv[j] = b[k * p.N + min(col0 + j, p.N - 1)];
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++)
                acc[i][j] += av[i] * bv[j];
    }
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            if (row0 + i < p.M && col0 + j < p.N)
                c[(row0 + i) * p.N + col0 + j] = acc[i][j];
}

#version 450
/*
 * C[M][N] = A[M][K] * B[K][N], row-major, one source for three precisions
 * (the build compiles it with -DFF_FP32, -DFF_FP16 or -DFF_INT8):
 *   fp32: fp32 in, fp32 accumulate, fp32 out
 *   fp16: fp16 in (16-bit storage), fp32 accumulate, fp16 out
 *   int8: int8 in (8-bit storage), int32 accumulate, int32 out
 *
 * Register blocking, no shared memory: each invocation owns a TM x (4*TN4)
 * block of C in registers and, per step of 4 along k, loads TM vec4 of A and
 * 4*TN4 vec4 of B, then does 16*TM*TN4 vec4 FMAs. Every loaded value is
 * reused from registers TN4*4 (A) or TM (B) times; on lavapipe, where each
 * buffer load costs far more than an FMA, that ratio is what counts, and
 * shared memory measured no faster there. Rows and vec4 columns of the block
 * are interleaved with the work-group size so neighbouring invocations touch
 * neighbouring addresses (coalesced on GPUs).
 *
 * The CPU-device kernel (texel variant) and the FF_VK_MATMUL_PATH=storage
 * one; GPUs run matmul_shared.comp (shared-memory tiling) by default.
 *
 * Sizes and tiles are specialization constants: the kernel is built for one
 * shape, and vk_pipeline.c picks the tiles per device.
 * Out-of-range rows/columns are clamped for loads and skipped for stores, so
 * any shape works; ALIGNED (K and N multiples of 4) selects the vec4 path,
 * otherwise a scalar path handles the odd shapes.
 */
#extension GL_EXT_control_flow_attributes : require
#if defined(FF_SGA)
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
#if defined(FF_FP16)
#extension GL_EXT_shader_16bit_storage : require
#define TIN float16_t
#define TIN4 f16vec4
#define TACC float
#define TACC4 vec4
#define TOUT float16_t
#define TOUT4 f16vec4
#elif defined(FF_INT8)
#extension GL_EXT_shader_8bit_storage : require
#define TIN int8_t
#define TIN4 i8vec4
#define TACC int
#define TACC4 ivec4
#define TOUT int
#define TOUT4 ivec4
#else
#define TIN float
#define TIN4 vec4
#define TACC float
#define TACC4 vec4
#define TOUT float
#define TOUT4 vec4
#endif

layout(local_size_x_id = 5, local_size_y_id = 6, local_size_z = 1) in;

layout(constant_id = 0) const uint M = 64;
layout(constant_id = 1) const uint N = 64;
layout(constant_id = 2) const uint K = 64;
layout(constant_id = 3) const uint TM = 8;    /* rows per invocation */
layout(constant_id = 4) const uint TN4 = 2;   /* vec4 columns per invocation */
layout(constant_id = 5) const uint WX = 8;
layout(constant_id = 6) const uint WY = 8;
layout(constant_id = 7) const bool ALIGNED = true;
layout(constant_id = 8) const uint SG = 8;    /* FF_SGA: the subgroup size it is built for */

#define MAX_TM 64
#define MAX_TN4 4
#define MAX_NF 4 /* FF_SGA: TM <= 2 * SG, two blocks of A in the texel build */

#if defined(FF_TEXEL)
/* A and B through uniform texel buffers (RGBA32F / RGBA16F / RGBA8I views):
 * the texture path converts to fp32/int32 and, on lavapipe, fetches all
 * lanes with SIMD gathers, where a storage-buffer load is a per-lane loop. */
#if defined(FF_INT8)
layout(set = 0, binding = 0) uniform isamplerBuffer a_tex;
layout(set = 0, binding = 1) uniform isamplerBuffer b_tex;
#else
layout(set = 0, binding = 0) uniform samplerBuffer a_tex;
layout(set = 0, binding = 1) uniform samplerBuffer b_tex;
#endif
#define LOAD_A4(i) texelFetch(a_tex, int(i))
#define LOAD_B4(i) texelFetch(b_tex, int(i))
/* FF_SGA: the B loads of B_AHEAD k rows (two k4 steps where K allows) are issued before their
 * FMAs, and each accumulator then takes its B_AHEAD updates in a row. On lavapipe each texel
 * fetch is a call into the sampler's code, which clobbers every vector register, and a 16x8
 * block has 128 accumulators for 32 registers: grouped calls spill the block once per block of
 * k instead of once per call, and the update order loads and stores each accumulator once per
 * block instead of once per k (measured on 12x16 with four rows ahead: 5096 -> 3658 lines of
 * objdump per k4 step, fp32 n=1024 0.45-0.47x -> 0.58-0.61x of the same-run peak,
 * tests/vulkan/bench_matmul). GPUs (storage loads) keep 1: their compilers schedule the loads
 * themselves, and rows of B held at once would cost registers. */
#define B_AHEAD 8
#else
layout(set = 0, binding = 0, std430) readonly buffer A4b { TIN4 a4[]; };
layout(set = 0, binding = 0, std430) readonly buffer A1b { TIN a1[]; };
layout(set = 0, binding = 1, std430) readonly buffer B4b { TIN4 b4[]; };
layout(set = 0, binding = 1, std430) readonly buffer B1b { TIN b1[]; };
#define LOAD_A4(i) TACC4(a4[i])
#define LOAD_B4(i) TACC4(b4[i])
#define B_AHEAD 1
#endif
layout(set = 0, binding = 2, std430) writeonly buffer C4b { TOUT4 c4[]; };
layout(set = 0, binding = 2, std430) writeonly buffer C1b { TOUT c1[]; };

void main()
{
    const uint K4 = K / 4, N4 = N / 4;
    uint row0 = gl_WorkGroupID.y * (WY * TM) + gl_LocalInvocationID.y;
    uint col0 = gl_WorkGroupID.x * (WX * TN4) + gl_LocalInvocationID.x; /* in vec4 units */

    TACC4 acc[MAX_TM][MAX_TN4];
    uint arow[MAX_TM];
    uint bcol[MAX_TN4];
    [[unroll]] for (uint i = 0; i < TM; i++) {
        arow[i] = min(row0 + i * WY, M - 1);
        [[unroll]] for (uint j = 0; j < TN4; j++)
            acc[i][j] = TACC4(0);
    }
    [[unroll]] for (uint j = 0; j < TN4; j++)
        bcol[j] = col0 + j * WX;

    if (ALIGNED) {
        [[unroll]] for (uint j = 0; j < TN4; j++)
            bcol[j] = min(bcol[j], N4 - 1);
#if defined(FF_SGA)
        /* A shared over the subgroup of SG lanes: per block of KG k4 steps the subgroup needs
         * TM * KG vec4 of A (row i, step g: q = g * TM + i), fetched by NF loads, q = f * SG +
         * lane; each invocation takes its scalars from the lane that holds them. A subgroup
         * lies in one work-group row (WX % SG == 0), so all its lanes share the rows.
         * The texel build doubles the block when K4 allows, so the loop's per-trip cost (on
         * lavapipe a blend of every accumulator with the loop mask) is paid half as often. */
        const uint KG0 = SG / TM > 0 ? SG / TM : 1;
#if defined(FF_TEXEL)
        const uint KG = K4 % (2 * KG0) == 0 ? 2 * KG0 : KG0; /* k4 steps per block */
#else
        const uint KG = KG0;
#endif
        const uint NF = (TM * KG + SG - 1) / SG;     /* fetches per lane and block */
        const uint KR = 4 * KG;                      /* k rows per block */
        const uint RA = B_AHEAD < KR ? B_AHEAD : KR; /* rows of B loaded ahead */
        uint lane = gl_SubgroupInvocationID;
        uint abase[MAX_NF];
        uint ag[MAX_NF];
        [[unroll]] for (uint f = 0; f < NF; f++) {
            uint q = min(f * SG + lane, TM * KG - 1);
            abase[f] = min(row0 + (q % TM) * WY, M - 1) * K4;
            ag[f] = q / TM;
        }
        for (uint k4 = 0; k4 < K4; k4 += KG) {
            TACC4 av[MAX_NF];
            [[unroll]] for (uint f = 0; f < NF; f++)
                av[f] = LOAD_A4(abase[f] + min(k4 + ag[f], K4 - 1));
            [[unroll]] for (uint r0 = 0; r0 < KR; r0 += RA) {
                /* the block's last steps may pass K (K4 % KG != 0: not the texel build's
                 * blocks, whose test folds to true) */
                if (K4 % KG == 0 || k4 + r0 / 4 < K4) {
                    TACC4 b[B_AHEAD][MAX_TN4];
                    [[unroll]] for (uint r = 0; r < RA; r++) {
                        uint boff = (k4 * 4 + r0 + r) * N4;
                        [[unroll]] for (uint j = 0; j < TN4; j++)
                            b[r][j] = LOAD_B4(boff + bcol[j]);
                    }
                    [[unroll]] for (uint i = 0; i < TM; i++) {
                        TACC s[B_AHEAD];
                        [[unroll]] for (uint r = 0; r < RA; r++) {
                            uint q = ((r0 + r) / 4) * TM + i;
                            s[r] = subgroupShuffle(av[q / SG][(r0 + r) % 4], q % SG);
                        }
                        [[unroll]] for (uint j = 0; j < TN4; j++)
                            [[unroll]] for (uint r = 0; r < RA; r++)
                                acc[i][j] += s[r] * b[r][j];
                    }
                }
            }
#if defined(FF_TEXEL)
            /* llvmpipe runs a work-group's subgroups one after the other, each through the
             * whole loop, unless a barrier makes them take turns: then the WY subgroups of a
             * column strip read this block's rows of B from L1, not each from L2 or L3 (fp32
             * n=1024: 0.63-0.66x of the peak in 16x1 groups, 0.71-0.74x in 16x4) */
            if (WY > 1)
                barrier();
#endif
        }
#else
        for (uint k4 = 0; k4 < K4; k4++) {
            TACC4 a[MAX_TM];
            [[unroll]] for (uint i = 0; i < TM; i++)
                a[i] = LOAD_A4(arow[i] * K4 + k4);
            [[unroll]] for (uint kk = 0; kk < 4; kk++) {
                uint boff = (k4 * 4 + kk) * N4;
                [[unroll]] for (uint j = 0; j < TN4; j++) {
                    TACC4 b = LOAD_B4(boff + bcol[j]);
                    [[unroll]] for (uint i = 0; i < TM; i++)
                        acc[i][j] += a[i][kk] * b;
                }
            }
        }
#endif
    } else {
#if !defined(FF_TEXEL) /* the texel variant is only built for aligned shapes */
        for (uint k = 0; k < K; k++) {
            TACC a[MAX_TM];
            [[unroll]] for (uint i = 0; i < TM; i++)
                a[i] = TACC(a1[arow[i] * K + k]);
            [[unroll]] for (uint j = 0; j < TN4; j++) {
                TACC4 b;
                [[unroll]] for (uint c = 0; c < 4; c++)
                    b[c] = TACC(b1[k * N + min(bcol[j] * 4 + c, N - 1)]);
                [[unroll]] for (uint i = 0; i < TM; i++)
                    acc[i][j] += a[i] * b;
            }
        }
#endif
    }

    [[unroll]] for (uint i = 0; i < TM; i++) {
        uint row = row0 + i * WY;
        if (row >= M)
            continue;
        [[unroll]] for (uint j = 0; j < TN4; j++) {
            uint col4 = col0 + j * WX;
            if (ALIGNED) {
                if (col4 < N4)
                    c4[row * N4 + col4] = TOUT4(acc[i][j]);
            } else {
                [[unroll]] for (uint c = 0; c < 4; c++)
                    if (col4 * 4 + c < N)
                        c1[row * N + col4 * 4 + c] = TOUT(acc[i][j][c]);
            }
        }
    }
}

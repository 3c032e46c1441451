#version 450
/*
 * Matmul on the matrix engine through cooperative matrix, written against
 * GL_NV_cooperative_matrix (what Debian 12's glslang knows). The build also
 * rewrites the SPIR-V into SPV_KHR_cooperative_matrix (coopmat_nv2khr.py),
 * so the same shader serves VK_NV_ and VK_KHR_cooperative_matrix devices.
 *   -DFF_FP16: fp16 A, B; fp32 accumulate; C stored as fp16
 *   -DFF_INT8: int8 A, B; int32 accumulate; C stored as int32
 *
 * Tile shape (LM x LN x LK) comes from the device's property query as
 * specialization constants 3..5 (the rewriter relies on these ids to tell
 * A, B and accumulator types apart). Each subgroup computes RM x RN tiles;
 * the work-group holds SGS nominal subgroups, and the loop over blocks uses
 * gl_NumSubgroups so a driver that picks another subgroup size still
 * covers every block. M, N, K must be multiples of LM, LN, LK.
 */
#extension GL_NV_cooperative_matrix : require

#extension GL_KHR_shader_subgroup_basic : require
#if defined(FF_INT8)
#extension GL_NV_integer_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int32 : require
#define TIN int8_t
#define TOUT int
#else
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define TIN float16_t
#define TOUT float16_t
#endif

layout(local_size_x_id = 8) in;

layout(constant_id = 0) const uint M = 64;
layout(constant_id = 1) const uint N = 64;
layout(constant_id = 2) const uint K = 64;
layout(constant_id = 3) const uint LM = 16;
layout(constant_id = 4) const uint LN = 16;
layout(constant_id = 5) const uint LK = 16;
layout(constant_id = 6) const uint SGS = 4;   /* nominal subgroups per work-group */

/* 3 = Subgroup scope (gl_ScopeSubgroup would need GL_KHR_memory_scope_semantics).
 * glslang declares the Vulkan memory model for coopmat either way, so the
 * device enables vulkanMemoryModel for these pipelines. */
#define FF_SCOPE_SUBGROUP 3
#define RM 2
#define RN 2

layout(set = 0, binding = 0, std430) readonly buffer Ab { TIN a[]; };
layout(set = 0, binding = 1, std430) readonly buffer Bb { TIN b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Cb { TOUT c[]; };

#if defined(FF_INT8)
#define MAT_A icoopmatNV<8, FF_SCOPE_SUBGROUP, LM, LK>
#define MAT_B icoopmatNV<8, FF_SCOPE_SUBGROUP, LK, LN>
#define MAT_ACC icoopmatNV<32, FF_SCOPE_SUBGROUP, LM, LN>
#else
#define MAT_A fcoopmatNV<16, FF_SCOPE_SUBGROUP, LM, LK>
#define MAT_B fcoopmatNV<16, FF_SCOPE_SUBGROUP, LK, LN>
#define MAT_ACC fcoopmatNV<32, FF_SCOPE_SUBGROUP, LM, LN>
#define MAT_OUT fcoopmatNV<16, FF_SCOPE_SUBGROUP, LM, LN>
#endif

void main()
{
    const uint tiles_m = M / LM, tiles_n = N / LN;
    const uint blocks_m = (tiles_m + RM - 1) / RM, blocks_n = (tiles_n + RN - 1) / RN;
    uint first = gl_WorkGroupID.x * SGS;
    for (uint blk = first + gl_SubgroupID; blk < first + SGS && blk < blocks_m * blocks_n;
         blk += gl_NumSubgroups) {
        uint tm0 = (blk / blocks_n) * RM, tn0 = (blk % blocks_n) * RN;
        MAT_ACC acc[RM][RN];
        for (uint i = 0; i < RM; i++)
            for (uint j = 0; j < RN; j++)
                acc[i][j] = MAT_ACC(0);
        for (uint k = 0; k < K; k += LK) {
            MAT_A ma[RM];
            MAT_B mb[RN];
            for (uint i = 0; i < RM; i++)
                if (tm0 + i < tiles_m)
                    coopMatLoadNV(ma[i], a, (tm0 + i) * LM * K + k, K, false);
            for (uint j = 0; j < RN; j++)
                if (tn0 + j < tiles_n)
                    coopMatLoadNV(mb[j], b, k * N + (tn0 + j) * LN, N, false);
            for (uint i = 0; i < RM; i++)
                for (uint j = 0; j < RN; j++)
                    if (tm0 + i < tiles_m && tn0 + j < tiles_n)
                        acc[i][j] = coopMatMulAddNV(ma[i], mb[j], acc[i][j]);
        }
        for (uint i = 0; i < RM; i++)
            for (uint j = 0; j < RN; j++)
                if (tm0 + i < tiles_m && tn0 + j < tiles_n) {
#if defined(FF_INT8)
                    coopMatStoreNV(acc[i][j], c, (tm0 + i) * LM * N + (tn0 + j) * LN, N, false);
#else
                    MAT_OUT o = MAT_OUT(acc[i][j]);
                    coopMatStoreNV(o, c, (tm0 + i) * LM * N + (tn0 + j) * LN, N, false);
#endif
                }
    }
}

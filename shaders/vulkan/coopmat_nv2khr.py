#!/usr/bin/env python3
"""Rewrite NV cooperative-matrix SPIR-V into SPV_KHR_cooperative_matrix.

usage: coopmat_nv2khr.py IN.spv OUT.spv [--spirv-val PATH]

Why this exists: Debian 12's glslang/shaderc (11.13 / 2023.2) compile
GL_NV_cooperative_matrix but not GL_KHR_cooperative_matrix, while AMD and
Intel expose matrix engines only through VK_KHR_cooperative_matrix. The two
SPIR-V extensions differ only in encoding, so the build compiles one GLSL
source with the NV extension and rewrites the binary:

  Capability CooperativeMatrixNV (5357)      -> CooperativeMatrixKHR (6022)
  OpExtension "SPV_NV_cooperative_matrix"    -> "SPV_KHR_cooperative_matrix"
  OpTypeCooperativeMatrixNV (5358) T S R C   -> OpTypeCooperativeMatrixKHR (4456) T S R C Use
  OpCooperativeMatrixLoadNV (5359) t r P Stride ColMajor [MA]
                                             -> LoadKHR (4457) t r P Layout Stride [MA]
  OpCooperativeMatrixStoreNV (5360) P O Stride ColMajor [MA]
                                             -> StoreKHR (4458) P O Layout Stride [MA]
  OpCooperativeMatrixMulAddNV (5361) t r A B C
                                             -> MulAddKHR (4459) t r A B C [Operands]
  OpCooperativeMatrixLengthNV (5362)         -> LengthKHR (4460)

KHR needs what NV leaves implicit:
  * Use (MatrixA=0, MatrixB=1, Accumulator=2) in each matrix type. Our
    shader (coopmat.comp) sizes A as LMxLK, B as LKxLN and accumulators as
    LMxLN with LM, LN, LK the specialization constants SpecId 3, 4, 5, so
    the role is read off the Rows/Columns ids. A type that matches none is
    an error, never a guess.
  * Layout is an <id> of an integer constant (RowMajor=0, ColumnMajor=1)
    where NV had a bool <id>: new OpConstants are appended after the uint
    type (ids taken from the bound).
  * Signedness: NV derives it from the OpTypeInt signedness; KHR wants
    Matrix{A,B,C,Result}SignedComponents (0xF) on the MulAdd when the
    components are signed integers.

spirv-val is run on the result when given and when it knows the extension;
an older spirv-val that does not know it is reported and skipped (Debian
12's 2023.1 predates SPV_KHR_cooperative_matrix).
"""
import subprocess
import sys

MAGIC = 0x07230203
OP_EXTENSION, OP_CAPABILITY, OP_TYPE_INT, OP_CONSTANT = 10, 17, 21, 43
OP_CONSTANT_TRUE, OP_CONSTANT_FALSE, OP_DECORATE = 41, 42, 71
OP_TYPE_FUNCTION, OP_FUNCTION = 33, 54
DEC_SPEC_ID = 1
NV_CAP, KHR_CAP = 5357, 6022
NV_TYPE, NV_LOAD, NV_STORE, NV_MULADD, NV_LENGTH = 5358, 5359, 5360, 5361, 5362
KHR_TYPE, KHR_LOAD, KHR_STORE, KHR_MULADD, KHR_LENGTH = 4456, 4457, 4458, 4459, 4460
SPEC_LM, SPEC_LN, SPEC_LK = 3, 4, 5
USE_A, USE_B, USE_ACC = 0, 1, 2


def string_words(s):
    b = s.encode() + b'\0'
    b += b'\0' * (-len(b) % 4)
    return [int.from_bytes(b[i:i + 4], 'little') for i in range(0, len(b), 4)]


def decode_string(words):
    b = b''.join(w.to_bytes(4, 'little') for w in words)
    return b.split(b'\0', 1)[0].decode()


def main():
    args = sys.argv[1:]
    spirv_val = None
    if '--spirv-val' in args:
        i = args.index('--spirv-val')
        spirv_val = args[i + 1]
        del args[i:i + 2]
    src, out = args
    data = open(src, 'rb').read()
    words = [int.from_bytes(data[i:i + 4], 'little') for i in range(0, len(data), 4)]
    if not words or words[0] != MAGIC:
        sys.exit('coopmat_nv2khr: %s is not little-endian SPIR-V' % src)
    header, bound = words[:5], words[3]
    insts = []
    i = 5
    while i < len(words):
        n = words[i] >> 16
        if n == 0 or i + n > len(words):
            sys.exit('coopmat_nv2khr: malformed instruction at word %d' % i)
        insts.append([words[i] & 0xffff] + words[i + 1:i + n])
        i += n

    spec = {}        # SpecId -> result id
    bools = {}       # bool constant id -> value
    ints = {}        # OpTypeInt id -> (width, signed)
    uint_type = None
    mat_types = {}   # NV type id -> (component type id, rows id, cols id)
    for ins in insts:
        op = ins[0]
        if op == OP_DECORATE and ins[2] == DEC_SPEC_ID:
            spec[ins[3]] = ins[1]
        elif op in (OP_CONSTANT_TRUE, OP_CONSTANT_FALSE):
            bools[ins[2]] = op == OP_CONSTANT_TRUE
        elif op == OP_TYPE_INT:
            ints[ins[1]] = (ins[2], ins[3])
            if ins[2] == 32 and ins[3] == 0 and uint_type is None:
                uint_type = ins[1]
        elif op == NV_TYPE:
            mat_types[ins[1]] = (ins[2], ins[4], ins[5])
    if not mat_types:
        sys.exit('coopmat_nv2khr: %s has no NV cooperative-matrix type' % src)
    lm, ln, lk = (spec.get(s) for s in (SPEC_LM, SPEC_LN, SPEC_LK))
    if None in (lm, ln, lk):
        sys.exit('coopmat_nv2khr: SpecIds 3, 4, 5 (LM, LN, LK) not found in %s' % src)

    new = []         # instructions to insert after the uint type
    if uint_type is None:
        uint_type = bound
        bound += 1
        new.append([OP_TYPE_INT, uint_type, 32, 0])
    consts = {}

    def const(v):
        nonlocal bound
        if v not in consts:
            consts[v] = bound
            new.append([OP_CONSTANT, uint_type, bound, v])
            bound += 1
        return consts[v]

    def use_of(tid):
        _, rows, cols = mat_types[tid]
        if (rows, cols) == (lm, lk):
            return USE_A
        if (rows, cols) == (lk, ln):
            return USE_B
        if (rows, cols) == (lm, ln):
            return USE_ACC
        sys.exit('coopmat_nv2khr: matrix type %%%d is neither LMxLK, LKxLN nor LMxLN' % tid)

    def layout(bool_id):
        if bool_id not in bools:
            sys.exit('coopmat_nv2khr: ColumnMajor %%%d is not a constant bool' % bool_id)
        return const(1 if bools[bool_id] else 0)

    def signed_int(tid):
        comp = mat_types[tid][0]
        return comp in ints and ints[comp][1] == 1

    out_insts = []
    for ins in insts:
        op = ins[0]
        if op == OP_CAPABILITY and ins[1] == NV_CAP:
            ins = [OP_CAPABILITY, KHR_CAP]
        elif op == OP_EXTENSION and decode_string(ins[1:]) == 'SPV_NV_cooperative_matrix':
            ins = [OP_EXTENSION] + string_words('SPV_KHR_cooperative_matrix')
        elif op == NV_TYPE:
            ins = [KHR_TYPE] + ins[1:6] + [const(use_of(ins[1]))]
        elif op == NV_LOAD:
            t, r, p, stride, colmajor = ins[1:6]
            ins = [KHR_LOAD, t, r, p, layout(colmajor), stride] + ins[6:]
        elif op == NV_STORE:
            p, o, stride, colmajor = ins[1:5]
            ins = [KHR_STORE, p, o, layout(colmajor), stride] + ins[5:]
        elif op == NV_MULADD:
            ins = [KHR_MULADD] + ins[1:6]
            if signed_int(ins[1]):
                ins.append(0xF)  # A, B, C and Result signed
        elif op == NV_LENGTH:
            ins = [KHR_LENGTH] + ins[1:]
        out_insts.append(ins)
        # constants go right after the uint type they use (or first type)
        if new is not None and op == OP_TYPE_INT and ins[1] == uint_type:
            out_insts.append(('deferred',))
    # materialise the deferred slot now that every constant is known
    final = []
    placed = False
    for ins in out_insts:
        if ins == ('deferred',):
            final.extend(new)
            placed = True
        else:
            final.append(ins)
    if not placed:
        # uint type was created by us: put it before the first type-dependent
        # instruction, i.e. before the first OpTypeFunction
        idx = next(i for i, ins in enumerate(final) if ins[0] in (OP_TYPE_FUNCTION, NV_TYPE,
                                                                   KHR_TYPE))
        final[idx:idx] = new

    header[3] = bound
    outw = list(header)
    for ins in final:
        outw.append((len(ins) << 16) | ins[0])
        outw.extend(ins[1:])
    open(out, 'wb').write(b''.join(w.to_bytes(4, 'little') for w in outw))

    if spirv_val:
        r = subprocess.run([spirv_val, '--target-env', 'vulkan1.1', out], capture_output=True,
                           text=True)
        if r.returncode != 0:
            msg = (r.stdout + r.stderr).strip()
            if 'CooperativeMatrixKHR' in msg or 'Invalid opcode' in msg or \
                    'capability' in msg.lower() and '6022' in msg or 'unknown' in msg.lower():
                print('coopmat_nv2khr: note: %s does not know SPV_KHR_cooperative_matrix; '
                      'result not validated (%s)' % (spirv_val, msg.splitlines()[0]))
            else:
                sys.exit('coopmat_nv2khr: spirv-val rejects %s:\n%s' % (out, msg))


main()

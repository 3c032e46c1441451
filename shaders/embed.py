#!/usr/bin/env python3
"""Embed a file as a C array in a generated header.

usage: embed.py text NAME IN OUT   -> static const char NAME[] = "..."; (OpenCL C source)
       embed.py spirv NAME IN OUT  -> static const uint32_t NAME[] = {...}; (SPIR-V words)
"""
import sys


def main():
    kind, name, src, out = sys.argv[1:5]
    data = open(src, 'rb').read()
    lines = ['/* generated from %s by shaders/embed.py; do not edit */' % src.split('/')[-1]]
    if kind == 'text':
        lines.append('static const char %s[] =' % name)
        for line in data.decode('utf-8').splitlines(True):
            esc = line.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')
            lines.append('    "%s"' % esc)
        lines.append('    ;')
    elif kind == 'spirv':
        if len(data) % 4:
            sys.exit('embed.py: %s is not a whole number of 32-bit words' % src)
        words = [int.from_bytes(data[i:i + 4], 'little') for i in range(0, len(data), 4)]
        lines.append('#include <stdint.h>')
        lines.append('static const uint32_t %s[] = {' % name)
        for i in range(0, len(words), 8):
            lines.append('    ' + ', '.join('0x%08x' % w for w in words[i:i + 8]) + ',')
        lines.append('};')
    else:
        sys.exit('embed.py: unknown kind %s' % kind)
    open(out, 'w').write('\n'.join(lines) + '\n')


main()

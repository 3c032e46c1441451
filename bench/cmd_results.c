/* bench/cmd_results.c — `flopfit results` (tables from many profiles): not built yet. */
#include <stdio.h>

#include "commands.h"

int ff_cmd_results(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "flopfit results: not available in this version\n");
    return 1;
}

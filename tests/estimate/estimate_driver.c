/* tests/estimate/estimate_driver.c — runs ff_cmd_estimate as a program (argv[0] becomes
 * "estimate"), for end-to-end tests and the README examples until `flopfit` links it. */
#include "estimate_cli.h"

int main(int argc, char **argv)
{
    static char name[] = "estimate";
    argv[0] = name;
    return ff_cmd_estimate(argc, argv);
}

/* tests/estimate/header_test.c — each public header compiles on its own: built once per
 * header with -DFF_HEADER="flopfit/x.h", which is included first and alone. */
#include FF_HEADER

int main(void)
{
    return 0;
}

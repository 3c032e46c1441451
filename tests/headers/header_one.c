/* tests/headers/header_one.c — one header compiles on its own: built once per header with
 * -DFF_HEADER="path/x.h", which is included first and alone (tests/headers/meson.build). */
#include FF_HEADER

int main(void)
{
    return 0;
}

/*
 * tests/estimate/tsan_canary.c — a deliberate data race. Built with -fsanitize=thread next to
 * test-estimate-threads-tsan and registered with should_fail: if ThreadSanitizer were not
 * really active in this build, this test would pass and the suite would say so.
 */
#include <pthread.h>

static int counter; /* written by two threads without a lock: the race TSan must report */

static void *bump(void *arg)
{
    for (int i = 0; i < 1000; i++)
        counter++;
    return arg;
}

int main(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, bump, NULL) != 0)
        return 0; /* no thread, no race: should_fail then fails, loudly */
    bump(NULL);
    pthread_join(t, NULL);
    return 0;
}

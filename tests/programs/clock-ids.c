/* The clocks of the NaCl ABI as pnacl-clang's C library names them (tests/c_programs.rs):
   their ids, the real-time clock against gettimeofday, the monotonic clock across a sleep
   of 200 ms, and a clock the ABI lacks. */
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

int main(void) {
    struct timespec real, m0, m1, other, nap = {0, 200000000};
    struct timeval tv;
    clock_gettime(CLOCK_REALTIME, &real);
    gettimeofday(&tv, NULL);
    clock_gettime(CLOCK_MONOTONIC, &m0);
    nanosleep(&nap, NULL);
    clock_gettime(CLOCK_MONOTONIC, &m1);
    long long slept = (m1.tv_sec - m0.tv_sec) * 1000LL + (m1.tv_nsec - m0.tv_nsec) / 1000000;
    printf("%d %d %d %d\n", (int)CLOCK_REALTIME, (int)CLOCK_MONOTONIC,
           (int)CLOCK_PROCESS_CPUTIME_ID, (int)CLOCK_THREAD_CPUTIME_ID);
    printf("%lld\n", (long long)(tv.tv_sec - real.tv_sec));
    printf("%d\n", slept >= 200 && slept < 1000);
    printf("%d\n", clock_gettime((clockid_t)4, &other));
    printf("%lld\n", (long long)real.tv_sec);
    return 0;
}

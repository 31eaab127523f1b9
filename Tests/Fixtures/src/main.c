// Fixture program: freestanding (no libc), so it links for any target without an SDK.
#include "mathops.h"

volatile int fixture_sink;
static int values[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};

static int fibonacci(int n) {
    if (n < 2) return n;
    return fibonacci(n - 1) + fibonacci(n - 2);
}

__attribute__((noinline)) static int deep_three(int x) {
    return mix(x, x + 1) + scaled_sum(values, 16, x);
}

static inline int deep_two(int x) {
    int a = deep_three(x);
    return mix(a, x);
}

static inline int deep_one(int x) {
    int r = 0;
    for (int i = 0; i < 4; i++) {
        r += deep_two(x + i);
    }
    return r;
}

typedef int (*operation)(int);

static int twice(int x) { return 2 * x; }
static int negate(int x) { return -x; }

static operation operations[] = {twice, negate};

int main(void) {
    int seed = fixture_sink;
    int total = fibonacci(seed & 15);
    total += deep_one(seed);
    total += shapes_area(seed & 3, seed, total);
    total += checksum((const unsigned char *)values, (int)sizeof(values));
    for (int i = 0; i < 2; i++) {
        total = operations[i](total);
    }
    total += run_table(total);
    total += cpp_entry(total);
    fixture_sink = total;
    return total & 0xff;
}

// Header-defined inline functions: when inlined, their frames name this file while the
// caller's call site names the including file, which is what the inline-chain tests need.
#ifndef FIXTURE_MATHOPS_H
#define FIXTURE_MATHOPS_H

static inline __attribute__((always_inline)) int clamp_int(int value, int low, int high) {
    if (value < low) return low;
    if (value > high) return high;
    return value;
}

static inline __attribute__((always_inline)) int mix(int a, int b) {
    int m = a * 31 + b;
    return clamp_int(m ^ (m >> 3), -100000, 100000);
}

static inline int scaled_sum(const int *values, int count, int scale) {
    int total = 0;
    for (int i = 0; i < count; i++) {
        total = mix(total, values[i] * scale);
    }
    return total;
}

int checksum(const unsigned char *bytes, int count);
int shapes_area(int kind, int a, int b);
int run_table(int seed);
int cpp_entry(int seed);

#endif

#include "mathops.h"

struct rect { int width; int height; };

static inline int rect_area(struct rect r) { return clamp_int(r.width * r.height, 0, 1 << 20); }

static int triangle_area(int base, int height) {
    int doubled = mix(base, height);
    return doubled / 2;
}

int shapes_area(int kind, int a, int b) {
    switch (kind) {
    case 0: {
        struct rect r = {a, b};
        return rect_area(r);
    }
    case 1:
        return triangle_area(a, b);
    case 2:
        return a * a * 3;
    default:
        return scaled_sum(&a, 1, b);
    }
}

int checksum(const unsigned char *bytes, int count) {
    unsigned int sum = 0;
    for (int i = 0; i < count; i++) {
        sum = (sum << 5) ^ (sum >> 27) ^ bytes[i];
        if ((sum & 7) == 3) {
            sum = (unsigned int)mix((int)sum, i);
        }
    }
    return (int)sum;
}

struct entry { const char *name; int (*run)(int); };

static int step_add(int x) { return x + 7; }
static int step_mul(int x) { return mix(x, 3) * 5; }
static int step_xor(int x) { return x ^ 0x5a5a; }

static const struct entry table[] = {
    {"add", step_add}, {"mul", step_mul}, {"xor", step_xor},
};

int run_table(int seed) {
    int value = seed;
    for (unsigned i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        value = table[i].run(value);
    }
    return value;
}

// C++ without its library: namespaces, classes, templates and lambdas give the DWARF linkage
// names, DW_AT_specification and DW_AT_abstract_origin chains the symbolizer must follow.
extern "C" int cpp_entry(int seed);

// What the virtual destructor and the pure virtual slot need when there is no C++ library.
extern "C" void __cxa_pure_virtual() { for (;;) {} }
void operator delete(void *) noexcept {}
void operator delete(void *, decltype(sizeof(0))) noexcept {}

namespace fixture {
namespace geometry {

struct Point {
    int x;
    int y;
    Point(int x, int y) : x(x), y(y) {}
    int manhattan() const { return (x < 0 ? -x : x) + (y < 0 ? -y : y); }
    Point operator+(const Point &other) const { return Point(x + other.x, y + other.y); }
};

template <typename T, int N>
class Ring {
public:
    void push(T value) {
        items[head] = value;
        head = (head + 1) % N;
    }
    template <typename F>
    T fold(T start, F combine) const {
        T acc = start;
        for (int i = 0; i < N; i++) acc = combine(acc, items[i]);
        return acc;
    }
private:
    T items[N] = {};
    int head = 0;
};

class Shape {
public:
    virtual ~Shape() {}
    virtual int area() const = 0;
};

class Square final : public Shape {
public:
    explicit Square(int side) : side(side) {}
    int area() const override { return side * side; }
private:
    int side;
};

__attribute__((noinline)) int walk(int steps) {
    Point p(0, 0);
    for (int i = 0; i < steps; i++) p = p + Point(i, -i);
    return p.manhattan();
}

}  // namespace geometry
}  // namespace fixture

namespace {
int anonymous_helper(int v) { return v * 3 + 1; }
}

int cpp_entry(int seed) {
    using namespace fixture::geometry;
    Ring<int, 8> ring;
    for (int i = 0; i < 8; i++) ring.push(seed + i);
    int folded = ring.fold(0, [](int a, int b) { return a * 7 + b; });
    Square square(seed & 31);
    const Shape &shape = square;
    return folded + shape.area() + walk(seed & 7) + anonymous_helper(seed);
}

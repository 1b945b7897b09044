"""CrazyModule from the tagging talk: a very convoluted `sum(x) * sum(y)`.

It stores its inputs through object construction, field stores, a module
global, a mutable global list and a callable object's field, then resets them.
"""

CONST_BINDING: list = []
GLOBAL_BINDING = 0.0


class Foo:
    def __init__(self, vector):
        self.vector = vector


class FooContainer:
    def __init__(self, foo):
        self.foo = foo


class PlusFunc:
    def __init__(self, x):
        self.x = x

    def __call__(self, x):
        return self.x + x


PLUSFUNC = PlusFunc(0.0)


def crazy_sum_mul(x, y):
    global GLOBAL_BINDING
    assert len(x) == len(y)
    fooc = FooContainer(Foo(x))
    tmp = y
    for i in range(len(y)):
        if i % 2 == 1:  # fooc.foo.vector is y and tmp is x
            v = fooc.foo.vector[i]
            CONST_BINDING.append(tmp[i])
            GLOBAL_BINDING = PLUSFUNC(v)
            PLUSFUNC.x = GLOBAL_BINDING
            fooc.foo = Foo(x)
            tmp = y
        else:  # fooc.foo.vector is x and tmp is y
            v = fooc.foo.vector[i]
            CONST_BINDING.append(v)
            GLOBAL_BINDING = PLUSFUNC(tmp[i])
            PLUSFUNC.x = GLOBAL_BINDING
            fooc.foo = Foo(y)
            tmp = x
    z = sum(CONST_BINDING) * GLOBAL_BINDING
    CONST_BINDING.clear()
    PLUSFUNC.x = 0.0
    GLOBAL_BINDING = 0.0
    return z

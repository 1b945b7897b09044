"""A module whose globals tests of tagging write to and read from."""

G = 0.0
H = 0.0


def store_global(x):
    global G
    G = x
    return G


def store_then_read_elsewhere(x):
    global G
    G = x
    return read_global()


def read_global():
    return G


def store_two_globals(x, y):
    global G, H
    G = x
    H = y
    G, H = H, G
    return G, H


def reset():
    global G, H
    G = 0.0
    H = 0.0


def read_h():
    return H

"""Writes sparse_linalg.npz: small sparse problems and SciPy's answers that
runtime/tests/api/sparse_linalg.rs compares cp::sparse::linalg with.

Run with SciPy 1.17 / NumPy 2.4:  python generate_sparse_linalg.py  (from this folder).
Keys are `<problem>/<field>`; each problem is a CSR matrix (data, indices,
indptr, shape) with a right-hand side b.
"""

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as sla

out = {}


def put(key, value):
    out[key] = np.asarray(value)


def poisson2d(m):
    """The 5-point Laplacian on an m x m grid (Dirichlet), n = m^2."""
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
    i = sp.identity(m)
    return (sp.kron(i, t) + sp.kron(t, i)).tocsr()


def convdiff2d(m, peclet):
    """Upwind convection-diffusion on an m x m grid: nonsymmetric."""
    h = 1.0 / (m + 1)
    c = peclet * h
    t = sp.diags([-1.0 - c, 2.0 + c, -1.0], [-1, 0, 1], shape=(m, m))
    s = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
    i = sp.identity(m)
    return (sp.kron(i, t) + sp.kron(s, i)).tocsr()


def graph_laplacian(n, seed):
    """A connected graph (a ring plus random chords) as D - W."""
    rng = np.random.default_rng(seed)
    rows = list(range(n)) + list(rng.integers(0, n, 2 * n))
    cols = [(i + 1) % n for i in range(n)] + list(rng.integers(0, n, 2 * n))
    w = sp.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n)).tocsr()
    w = w + w.T
    w.setdiag(0)
    w.eliminate_zeros()
    w.data[:] = 1.0
    return (sp.diags(np.asarray(w.sum(axis=1)).ravel()) - w).tocsr()


def put_matrix(name, a, b):
    a = a.tocsr()
    a.sort_indices()
    put(f"{name}/data", a.data)
    put(f"{name}/indices", a.indices.astype(np.int32))
    put(f"{name}/indptr", a.indptr.astype(np.int32))
    put(f"{name}/shape", np.array(a.shape, dtype=np.int64))
    put(f"{name}/b", b)
    put(f"{name}/spsolve", sla.spsolve(a.tocsc(), b))
    for o in ["fro", 1, np.inf]:
        put(f"{name}/norm_{o}", sla.norm(a, o))


def count_iterations(solver, a, b, **kw):
    n = [0]

    def cb(_):
        n[0] += 1

    x, info = solver(a, b, callback=cb, **kw)
    return x, info, n[0]


rng = np.random.default_rng(34)
problems = {
    "poisson": poisson2d(8),
    "convdiff": convdiff2d(7, 40.0),
    "laplacian": graph_laplacian(40, 7),
}
for name, a in problems.items():
    n = a.shape[0]
    b = rng.standard_normal(n)
    put_matrix(name, a, b)

# Krylov solvers: SciPy's iterates at a tight tolerance and their iteration counts.
a, b = problems["poisson"], out["poisson/b"]
x, info, it = count_iterations(sla.cg, a, b, rtol=1e-10)
put("poisson/cg_x", x)
put("poisson/cg_iterations", it)
d = a.diagonal()
m = sla.LinearOperator(a.shape, matvec=lambda v: v / d)
x, info, it = count_iterations(sla.cg, a, b, rtol=1e-10, M=m)
put("poisson/cg_jacobi_iterations", it)
x, info, it = count_iterations(sla.cg, a, b, rtol=1e-10, maxiter=5)
put("poisson/cg_5_x", x)
put("poisson/cg_5_info", info)
a, b = problems["convdiff"], out["convdiff/b"]
x, info = sla.gmres(a, b, rtol=1e-10, restart=10)
put("convdiff/gmres_x", x)
put("convdiff/gmres_info", info)
x, info = sla.gmres(a, b, rtol=1e-10, restart=10, maxiter=2)
put("convdiff/gmres_2_x", x)
x, info, it = count_iterations(sla.bicgstab, a, b, rtol=1e-10)
put("convdiff/bicgstab_x", x)
put("convdiff/bicgstab_iterations", it)
put("convdiff/diagonal", a.diagonal())

# Least squares on a tall matrix (convdiff's first columns).
a = problems["convdiff"][:, :30].tocsr()
b = out["convdiff/b"]
put("tall/lsqr_x", sla.lsqr(a, b, atol=1e-12, btol=1e-12)[0])
# splu's transposed solve of the nonsymmetric problem.
put("convdiff/splu_T", sla.splu(problems["convdiff"].tocsc()).solve(out["convdiff/b"], trans="T"))
# LSMR: the tall problem plain and damped, and the square Poisson problem.
for key, damp in [("tall/lsmr", 0.0), ("tall/lsmr_damped", 0.5)]:
    r = sla.lsmr(a, b, damp=damp, atol=1e-12, btol=1e-12, maxiter=300)
    put(f"{key}_x", r[0])
    put(f"{key}_normr", r[3])
    put(f"{key}_istop", r[1])
r = sla.lsmr(problems["poisson"], out["poisson/b"], atol=1e-12, btol=1e-12, maxiter=500)
put("poisson/lsmr_x", r[0])
put("poisson/lsmr_normr", r[3])
put("poisson/lsmr_istop", r[1])

# Eigenvalues (ascending, as SciPy returns them) and singular values.
for name in ["poisson", "laplacian"]:
    a = problems[name]
    for which in ["LA", "SA", "LM"]:
        put(f"{name}/eigsh_{which}", np.sort(sla.eigsh(a, k=4, which=which)[0]))
    put(f"{name}/eigvals", np.linalg.eigvalsh(a.toarray()))
put("convdiff/svds", np.sort(sla.svds(problems["convdiff"], k=3)[1]))
put("convdiff/expm_multiply", sla.expm_multiply(-0.1 * problems["convdiff"].tocsc(), out["convdiff/b"]))



# Zero-fill incomplete factorizations. SciPy has no ILU(0) / IC(0) (its
# spilu is SuperLU's threshold ILU), so the reference is the textbook loop
# over the pattern (Saad, Iterative Methods, Algorithm 10.4 and its
# Cholesky form), cross-checked below: for a symmetric matrix, IC(0)'s L is
# ILU(0)'s unit L scaled by sqrt(diag U).
def pattern_of(a):
    p = a.copy()
    p.data[:] = 1.0
    return p.toarray() != 0


def in_pattern(dense, a):
    """The entries of `dense` at a's stored positions, in a's CSR order."""
    rows = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
    return dense[rows, a.indices]


def ilu0(a):
    n = a.shape[0]
    pat = pattern_of(a)
    lu = a.toarray()
    for i in range(1, n):
        for k in range(i):
            if not pat[i, k]:
                continue
            lu[i, k] /= lu[k, k]
            for j in range(k + 1, n):
                if pat[i, j]:
                    lu[i, j] -= lu[i, k] * lu[k, j]
    return lu


def ic0(a):
    """L of the lower triangle of symmetric positive definite a."""
    low = sp.tril(a).tocsr()
    n = a.shape[0]
    pat = pattern_of(low)
    l = low.toarray()
    for i in range(n):
        for k in range(i):
            if not pat[i, k]:
                continue
            s = l[i, k] - sum(l[i, j] * l[k, j] for j in range(k) if pat[i, j] and pat[k, j])
            l[i, k] = s / l[k, k]
        l[i, i] = np.sqrt(l[i, i] - sum(l[i, k] ** 2 for k in range(i) if pat[i, k]))
    return l


def ilu0_operator(a, lu):
    lower = sp.csr_matrix(np.tril(lu, -1) * pattern_of(a) + np.eye(a.shape[0]))
    upper = sp.csr_matrix(np.triu(lu) * pattern_of(a))

    def apply(r):
        y = sla.spsolve_triangular(lower, r, lower=True, unit_diagonal=True)
        return sla.spsolve_triangular(upper, y, lower=False)

    return sla.LinearOperator(a.shape, matvec=apply)


def ic0_operator(l):
    lower = sp.csr_matrix(l)
    upper = sp.csr_matrix(l.T)

    def apply(r):
        return sla.spsolve_triangular(upper, sla.spsolve_triangular(lower, r, lower=True), lower=False)

    return sla.LinearOperator(l.shape, matvec=apply)


for name in ["poisson", "convdiff"]:
    a = problems[name].tocsr()
    a.sort_indices()
    lu = ilu0(a)
    put(f"{name}/ilu0_data", in_pattern(lu, a))
poisson = problems["poisson"].tocsr()
poisson.sort_indices()
l_ic = ic0(poisson)
low = sp.tril(poisson).tocsr()
low.sort_indices()
put("poisson/ic0_data", in_pattern(l_ic, low))
put("poisson/ic0_indptr", low.indptr.astype(np.int32))
lu = ilu0(poisson)
scaled = (np.tril(lu, -1) + np.eye(lu.shape[0])) * np.sqrt(np.diag(lu))
assert np.allclose(scaled * pattern_of(low), l_ic, rtol=1e-13, atol=1e-13), "IC(0) != scaled ILU(0)"

# Preconditioned Krylov runs: cg + IC(0) on Poisson, bicgstab / gmres + ILU(0) on convdiff.
a, b = problems["poisson"], out["poisson/b"]
x, info, it = count_iterations(sla.cg, a, b, rtol=1e-10, M=ic0_operator(l_ic))
assert info == 0
put("poisson/cg_ic0_x", x)
put("poisson/cg_ic0_iterations", it)
a, b = problems["convdiff"].tocsr(), out["convdiff/b"]
a.sort_indices()
m = ilu0_operator(a, ilu0(a))
x, info, it = count_iterations(sla.bicgstab, a, b, rtol=1e-10, M=m)
assert info == 0
put("convdiff/bicgstab_ilu0_x", x)
put("convdiff/bicgstab_ilu0_iterations", it)
x, info = sla.gmres(a, b, rtol=1e-10, restart=10, M=m)
assert info == 0
put("convdiff/gmres_ilu0_x", x)

# Triangular solves of a random sparse matrix's triangles (SciPy gets the
# triangle; cp::sparse::linalg::spsolve_triangular the whole matrix, and
# must ignore the other side).
n = 30
t = sp.random(n, n, density=0.15, random_state=np.random.default_rng(5), format="csr")
t = (t + sp.diags(2.0 + rng.random(n))).tocsr()
t.sort_indices()
put("tri/data", t.data)
put("tri/indices", t.indices.astype(np.int32))
put("tri/indptr", t.indptr.astype(np.int32))
put("tri/shape", np.array(t.shape, dtype=np.int64))
put("tri/b", rng.standard_normal(n))
for lower in [True, False]:
    part = (sp.tril(t) if lower else sp.triu(t)).tocsr()
    for unit in [False, True]:
        key = ("lower" if lower else "upper") + ("_unit" if unit else "")
        put(f"tri/{key}", sla.spsolve_triangular(part, out["tri/b"], lower=lower, unit_diagonal=unit))

np.savez_compressed("sparse_linalg.npz", **out)
print(f"wrote {len(out)} arrays")

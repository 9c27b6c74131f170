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

np.savez_compressed("sparse_linalg.npz", **out)
print(f"wrote {len(out)} arrays")

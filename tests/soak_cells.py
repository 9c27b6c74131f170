"""The cells of the soak run (tests/soak.py): the course notebooks' code
cells, and generated allocation-heavy, display-heavy and interrupted cells,
laid out in a seeded, repeatable plan.

Notebook cells run as whole notebooks ("blocks"), top to bottom, as a reader
runs them: later cells use earlier cells' variables, and notebooks reuse
names (`x` is an array in one and a vector in another), so cells of two
notebooks are never interleaved. After each block the driver drops the
variables the notebook left (a `:vars` listing, then a cell that drops
them), so what the session holds does not depend on which notebooks ran
last.

Generated cells keep nothing but a few arrays in variables (`soak_keep_K`):
their other values live in a block and are dropped at its end. Each kept
variable has a fixed size and is overwritten with fresh arrays of that size,
so the memory they hold is the same whenever it is measured, while the
temporaries around them vary in size.
"""

import glob
import json
import os
import random
from dataclasses import dataclass

# Notebook 15 runs SPMD (several ranks): it cannot run in one kernel.
SKIP_NOTEBOOKS = ("15-",)
# Cells left out for their time alone (they define nothing later cells use):
# (notebook prefix, code-cell index) -> why.
SKIP_CELLS = {
    ("11", 3): "%timeit of 5 x 20 runs: 10 s on 2 CPU cores",
    ("12", 11): "a sweep of benchmarks over sizes: seconds even on the GPU",
}

# The kept slots: (elements, dtype) per slot, about 16 MB of float32 in all.
SLOTS = [(1 << 16, "f32"), (1 << 17, "f32"), (1 << 18, "f64"), (1 << 19, "f32"), (1 << 20, "f32"), (1 << 21, "f32")]
# Sizes of temporaries (elements): small, medium, large.
TEMP_SIZES = [1_000, 50_000, 1 << 18, 1 << 20, 1 << 22]
INTERRUPT_MARK = "soak-started"


@dataclass(frozen=True)
class Cell:
    """One cell of the plan. `code` is None for the drop cell, which the
    driver writes from the `:vars` listing just before it."""

    kind: str  # notebook, setup, alloc, display, interrupt, vars, drop
    label: str
    code: str | None


def setup_cell():
    """Creates the kept slots (run first; the plan's replay runs it again)."""
    lines = [f"let soak_keep_{k} = cp::zeros([{n}], cp::{dt})?;" for k, (n, dt) in enumerate(SLOTS)]
    return Cell("setup", "setup", "\n".join(lines))


def notebook_blocks(notebooks_dir):
    """[(name, [Cell])] of the course notebooks, in file order."""
    blocks = []
    for path in sorted(glob.glob(os.path.join(notebooks_dir, "*.ipynb"))):
        name = os.path.basename(path)
        if name.startswith(SKIP_NOTEBOOKS):
            continue
        with open(path) as f:
            nb = json.load(f)
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        cells = []
        for i, c in enumerate(code):
            if (name[:2], i) in SKIP_CELLS:
                continue
            src = "".join(c["source"])
            if src.strip():
                cells.append(Cell("notebook", f"{name[:2]}[{i}]", src))
        if cells:
            blocks.append((name, cells))
    return blocks


def warmup_cells(notebooks_dir, plan=None):
    """Every notebook the plan draws cells from once (every notebook without
    a plan), each followed by its retire cells: run before the counted
    cells, so that what the runtime sets up once and keeps (thread pools,
    plans, caches of compiled kernels) is in the levels the end is compared
    with. A notebook the plan never runs sets nothing up in the counted
    cells, so a short plan (CI's) warms up only the few it draws."""
    drawn = None if plan is None else {c.label[:2] for c in plan if c.kind == "notebook"}
    cells = []
    for name, nb_cells in notebook_blocks(notebooks_dir):
        if drawn is None or name[:2] in drawn:
            cells += nb_cells + retire_cells(name)
    return cells


def retire_cells(name):
    """The two cells after a notebook block: list the variables, drop them."""
    return [Cell("vars", f"{name[:2]}:vars", ":vars"), Cell("drop", f"{name[:2]}:drop", None)]


def drop_code(vars_listing):
    """Code that drops every variable in a `:vars` listing ("name: Type"
    lines) but the soak's own; None when there is nothing to drop.

    `drop(name)` frees the value, but evcxr forgets a variable only when it
    was moved, which a `Copy` value (an f64) never is; left over, it would
    shadow a function of that name in another notebook (07's `rel`). So each
    name is then bound to a String that is moved too."""
    names = []
    for line in vars_listing.splitlines():
        name, sep, _ = line.partition(":")
        name = name.strip()
        if sep and name.isidentifier() and not name.startswith("soak_"):
            names.append(name)
    if not names:
        return None
    return "\n".join(f"drop({n});\nlet {n} = String::new();\ndrop({n});" for n in sorted(names))


# ---------------------------------------------------------------- generated


def alloc_cell(rng, i):
    """An allocation-heavy cell: temporaries of various sizes made and
    dropped, and sometimes a kept slot overwritten."""
    n = rng.choice(TEMP_SIZES)
    dt = rng.choice(["f32", "f64"])
    seed = rng.randrange(1 << 30)
    variant = rng.randrange(6)
    if variant == 0:
        body = (f"let t = cp::random::default_rng({seed}).random_as([{n}], cp::{dt})?;\n"
                "let u = cp::exp(&(&t * 0.5))? + cp::sin(&t)?;\n"
                "let s = u.sum()?;\n"
                "drop((t, u));\n"
                "s.scalar()?.as_f64()")
    elif variant == 1:
        rows = max(1, n // 256)
        body = (f"let m = cp::arange({rows * 256})?.astype(cp::{dt})?.reshape([{rows}, 256])?;\n"
                "let col = m.mean_axis(0)?;\n"
                "let centred = &m - &col;\n"
                "let t = centred.t().copy()?;\n"
                "t.sum_axis(1)?.cumsum(None)?.size()")
    elif variant == 2:
        count = rng.choice([50, 200, 800])
        body = (f"let parts: Vec<cp::Array> = (0..{count})\n"
                f"    .map(|i| cp::full([i % 37 + 1], i as f64, cp::{dt}))\n"
                "    .collect::<cp::Result<_>>()?;\n"
                "let refs: Vec<&cp::Array> = parts.iter().collect();\n"
                "let joined = cp::concatenate(&refs, 0)?;\n"
                "joined.size()")
    elif variant == 3:
        side = rng.choice([16, 64, 256])
        body = (f"let a = cp::random::default_rng({seed}).random_as([{side}, {side}], cp::{dt})?;\n"
                "let b = cp::matmul(&a, &a.t())?;\n"
                "let picked = b.take(vec![0i64, -1], Some(0))?;\n"
                "picked.shape().to_vec()")
    elif variant == 4:
        # Overwrite a kept slot with a fresh array of its size (the old one is dropped).
        k = rng.randrange(len(SLOTS))
        sn, sdt = SLOTS[k]
        make = rng.choice([
            f"cp::ones([{sn}], cp::{sdt})?",
            f"cp::arange({sn})?.astype(cp::{sdt})?",
            f"cp::random::default_rng({seed}).random_as([{sn}], cp::{sdt})?",
            f"(&soak_keep_{k} * 0.5 + 1.0)",
        ])
        return Cell("alloc", f"alloc{i}", f"let soak_keep_{k} = {make};\nsoak_keep_{k}.size()")
    else:
        body = (f"let mut acc = cp::zeros([{n}], cp::{dt})?;\n"
                f"for step in 0..{rng.choice([4, 16, 64])} {{\n"
                "    acc += &cp::full_like(&acc, step as f64)?;\n"
                "}\n"
                "let kept_view = acc.slice(cp::s![..;2])?.copy()?;\n"
                "kept_view.size()")
    # A block, so nothing but the kept slots outlives the cell.
    return Cell("alloc", f"alloc{i}", "{\n" + body + "\n}")


def display_cell(rng, i):
    """A display-heavy cell: an HTML table, a plot, an array's HTML view, a
    display updated in place, or a magic's report."""
    seed = rng.randrange(1 << 30)
    variant = rng.randrange(7)
    if variant == 0:
        rows, cols = rng.choice([(5, 3), (40, 6), (200, 8)])
        code = ("let mut table = cp::Table::new()\n"
                f"    .caption(\"soak table {i}\")\n"
                f"    .header((0..{cols}).map(|c| cuprite_display::Cell::head(format!(\"c{{c}}\"))).collect());\n"
                f"for r in 0..{rows} {{\n"
                f"    table.push_row((0..{cols})\n"
                "        .map(|c| cuprite_display::Cell::num(format!(\"{:.3}\", (r * c) as f64 / 7.0)))\n"
                "        .collect());\n"
                "}\n"
                "display(&table);")
    elif variant == 1:
        n = rng.choice([100, 2000, 50_000])
        code = (f"let x = cp::linspace(0.0, 10.0, {n})?;\n"
                f"let y = cp::random::default_rng({seed}).normal(0.0, 1.0, [{n}])?.cumsum(None)?;\n"
                "cp::plot::line_xy(&x, &y)?.label(\"walk\")\n"
                f"    .scatter(&x, &cp::sin(&x)?)?.label(\"sin\").title(\"soak plot {i}\")")
    elif variant == 2:
        n, bins = rng.choice([(1000, 10), (100_000, 60), (1_000_000, 120)])
        code = (f"let h = cp::random::default_rng({seed}).normal(0.0, 1.0, [{n}])?;\n"
                f"cp::plot::hist(&h, {bins})?.title(\"soak histogram {i}\")")
    elif variant == 3:
        r, c = rng.choice([(20, 30), (120, 160), (400, 400)])
        code = (f"let field = cp::random::default_rng({seed}).random_as([{r}, {c}], cp::f32)?;\n"
                "cp::plot::Figure::new()\n"
                "    .panel(cp::plot::Axes::new().imshow(&field)?.colorbar(true))\n"
                "    .panel(cp::plot::Axes::new().hist(&field.reshape([-1])?, 30)?)\n"
                "    .columns(2)")
    elif variant == 4:
        shape = rng.choice(["[6]", "[12, 8]", "[300, 300]", "[4, 50, 50]"])
        dt = rng.choice(["f32", "f64", "i64", "c64"])
        code = f"cp::ones({shape}, cp::{dt})? * 3"
        if dt == "c64":
            code = f"cp::ones({shape}, cp::c64)?"
    elif variant == 5:
        # A fixed set of display ids, so the session's ids stay bounded.
        slot = rng.randrange(4)
        steps = rng.choice([3, 10, 30])
        code = (f"display_with_id(&Html::new(\"<b>soak 0</b>\", \"soak 0\"), \"soak-status-{slot}\");\n"
                f"for step in 1..={steps} {{\n"
                "    let cells: String = (0..step * 10).map(|k| format!(\"<td>{k}</td>\")).collect();\n"
                "    let html = Html::new(format!(\"<table><tr>{cells}</tr></table>\"), format!(\"step {step}\"));\n"
                f"    update_display(&html, \"soak-status-{slot}\");\n"
                "}\n"
                "display(&Markdown(\"**soak** updated in place\".into()));")
    else:
        return Cell("display", f"display{i}", rng.choice(["%mem", "%whos", "%gpu"]))
    # A block, so that nothing the cell made outlives it.
    return Cell("display", f"display{i}", "{\n" + code + "\n}")


# Interrupted cells: each stops at the interrupt without losing the cell
# process (a busy `loop {}` would, and the restart would reset the memory
# being measured). Locals live in a block, so nothing outlives the cell.
INTERRUPT_VARIANTS = [
    # Cooperative: the cell polls and ends normally ("ok").
    ("{\n"
     f"    println!(\"{INTERRUPT_MARK}\");\n"
     "    let mut spins = 0u64;\n"
     "    while !cuprite_kernel_io::interrupted() {\n"
     "        std::thread::sleep(std::time::Duration::from_millis(5));\n"
     "        spins += 1;\n"
     "    }\n"
     "    println!(\"stopped after {spins} spins\");\n"
     "}"),
    # An operator in a loop: the runtime call panics with the interrupt.
    ("{\n"
     "    let mut acc = cp::zeros([4096], cp::f32)?;\n"
     f"    println!(\"{INTERRUPT_MARK}\");\n"
     "    loop { acc = &acc + 1.0; }\n"
     "}"),
    # `?` in a loop: Error::Interrupted ends the cell.
    ("{\n"
     "    let mut total = cp::zeros([1 << 16], cp::f64)?;\n"
     f"    println!(\"{INTERRUPT_MARK}\");\n"
     "    loop { total = cp::add(&total, 1.0)?; }\n"
     "}"),
]


def interrupt_cell(pos, every):
    """The interrupted cell at plan position `pos`; the variants take turns."""
    which = (pos // max(every, 1)) % len(INTERRUPT_VARIANTS)
    return Cell("interrupt", f"interrupt{pos}", INTERRUPT_VARIANTS[which])


# --------------------------------------------------------------------- plan


def make_plan(cells, window, seed, notebooks_dir, interrupt_every=50):
    """`cells` cells: the first `window` (the slots' setup first) are drawn,
    then `cells - 2 * window` more, then the first `window` again, so the
    first and last windows run the same code from the same held state and
    their times and memory compare like for like. Every `interrupt_every`-th
    cell is an interrupted one (0: none)."""
    if window < 1 or cells < 2 * window:
        raise ValueError(f"--cells ({cells}) must be at least twice --window ({window})")
    if interrupt_every == 1:
        raise ValueError("--interrupt-every must be 0 (none) or at least 2")
    rng = random.Random(seed)
    blocks = notebook_blocks(notebooks_dir)
    order = []  # notebooks still due in this round (each round: all, shuffled)

    def due(pos):
        return interrupt_every and pos % interrupt_every == interrupt_every - 1

    def draw(length, start, whole_blocks):
        out = []
        while len(out) < length:
            pos = start + len(out)
            if due(pos):
                out.append(interrupt_cell(pos, interrupt_every))
                continue
            kind = rng.choices(["notebook", "alloc", "display"], weights=[1, 7, 5])[0]
            if kind == "notebook" and blocks:
                if not order:
                    order.extend(rng.sample(range(len(blocks)), len(blocks)))
                name, nb_cells = blocks[order[-1]]
                run = []
                for c in nb_cells + retire_cells(name):
                    if due(pos + len(run)):
                        run.append(interrupt_cell(pos + len(run), interrupt_every))
                    run.append(c)
                # The middle ends on a whole block, so that no notebook's
                # variables are left over when the first window runs again.
                if not whole_blocks or len(out) + len(run) <= length:
                    order.pop()
                    out.extend(run)
                    continue
                kind = "alloc"
            out.append(display_cell(rng, pos) if kind == "display" else alloc_cell(rng, pos))
        return out[:length]

    head = ([setup_cell()] + draw(window - 1, 1, whole_blocks=False))[:window]
    middle = draw(cells - 2 * window, window, whole_blocks=True)
    return head + middle + head

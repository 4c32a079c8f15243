#!/usr/bin/python3
"""Certified monotone path for the FLIQC LCQP (research prototype, numpy only).

FLIQC joint-velocity LCQP, x = [qdot (n); lambda (m)]:
    min 1/2 x'Qx + g'x
    s.t. qdot = qg + N B lambda                       (N = Pnull, B = [Pinv_1 .. Pinv_m])
         0 <= lambda  perp  w = psi - eps + dt P qdot >= 0
         -qmax <= qdot <= qmax,  lambda <= lambda_max
With B = P' D, D = diag(1/|P_i|^2) and mu = D lambda:
    w = c + S mu,  c = psi - eps + dt P qg,  S = dt P N P'  (symmetric PSD)
so the complementarity is the monotone LCP(c, S).  Facts used (all proved in README.md):
    * SOL(c,S) is a polyhedron, w is the same for every solution, and so is
      N P' mu (because mu'S mu = dt |N P' mu|^2), hence qdot is UNIQUE on SOL.
    * Lemke with a lexicographic rule either finds mu* or ends on a secondary ray
      y >= 0, S y = 0, c'y < 0, a Farkas certificate that LCP(c,S) is infeasible.
    * SOL = {mu >= 0 : mu_i = 0 (w*_i > 0), w_i = 0 (w*_i = 0)}      (index-set form)
          = {mu >= 0 : S mu = S mu*, c'mu <= c'mu*}                   (classification-free)

Paths compared per instance (all share one Lemke run):
    H1  the brief's hypothesis: QP in x over the index-set polyhedron (I0 = Lemke basis + w_i <= tau)
    U   what C++ should run: Lemke; if S[I0,I0] is nonsingular lambda is unique -> done (box check),
        otherwise R
    V   classification-free, in x: qdot = qdot*, kinematic rows, c'D lambda <= c'mu* (+delta)
    R   reduced: check |qdot*| <= qmax, then QP in lambda only (min-norm lambda on SOL)
    L   Lemke only: x = [qdot*; lambda*] without any QP (exact iff lambda is unique on SOL)
QP solver: Goldfarb-Idnani dual active set (equalities first, then most-violated inequality),
with dependent equality rows removed beforehand by a greedy rank-revealing Gram-Schmidt and the
removed rows checked for consistency.

usage: /usr/bin/python3 fliqc_certified.py [path-to-fliqc_instances.json] [--quiet]
"""
import json
import math
import sys
import time

import numpy as np

DEFAULT_JSON = "/work/shared/reference/lcqp/fliqc_instances.json"
BIG = 1e300  # anything >= this is "infinite" (DBL_MAX)


def num(v):
    if v is None:
        return math.inf
    if isinstance(v, str):
        if v in ("DBL_MAX", "inf"):
            return math.inf
        if v == "-inf":
            return -math.inf
        return float(v)
    v = float(v)
    return math.inf if v >= BIG else (-math.inf if v <= -BIG else v)


# --------------------------------------------------------------------------------------------
# (1) Lemke's complementary pivoting, lexicographic anti-cycling
# --------------------------------------------------------------------------------------------
def _lexmin(T, rows, col_a, ncols_lex, rhs, tie_tol=1e-11):
    """Lexicographic minimum over candidate rows of (T[i,rhs], T[i,0:n]) / a_i."""
    cand = list(rows)
    for col in [rhs] + list(range(ncols_lex)):
        if len(cand) == 1:
            break
        ratios = np.array([T[i, col] / col_a[i] for i in cand])
        mn = ratios.min()
        cand = [i for i, r in zip(cand, ratios) if r <= mn + tie_tol * (1.0 + abs(mn))]
    return cand[0]


def lemke(M, q, piv_tol=1e-11, max_pivots=None):
    """Solve LCP(q, M): z >= 0, w = q + M z >= 0, z'w = 0, covering vector d = 1.

    Tableau I w - M z - d z0 = q.  Initial basis w (B = I), so columns 0..n-1 of the tableau are
    B^{-1} throughout, and the lexicographic rule uses (rhs, B^{-1} row) / pivot entry.
    Returns dict(status='solution'|'ray'|'maxpiv', z, w, pivots, ray=(z_h, z0_h)).
    """
    n = len(q)
    if max_pivots is None:
        max_pivots = 50 * n + 50
    if np.all(q >= 0):
        return dict(status="solution", z=np.zeros(n), w=q.copy(), pivots=0, basis_z=[])
    d = np.ones(n)
    RHS = 2 * n + 1
    T = np.hstack([np.eye(n), -M, -d[:, None], q[:, None]]).astype(float)
    basis = list(range(n))  # variable index per row: 0..n-1 w, n..2n-1 z, 2n z0
    # initial pivot: z0 enters, leaving row = lexmin of (q_i, e_i)/d_i
    r = _lexmin(np.hstack([np.eye(n), np.zeros((n, n + 1)), q[:, None]]), range(n), d, n, RHS)
    entering = 2 * n
    pivots = 0

    def pivot(r, e):
        T[r] /= T[r, e]
        col = T[:, e].copy()
        col[r] = 0.0
        T[:] -= np.outer(col, T[r])

    while True:
        pivot(r, entering)
        pivots += 1
        leaving = basis[r]
        basis[r] = entering
        if leaving == 2 * n:
            break  # z0 left: complementary solution
        entering = leaving + n if leaving < n else leaving - n  # complement
        if pivots >= max_pivots:
            return dict(status="maxpiv", pivots=pivots)
        a = T[:, entering]
        amax = max(1.0, np.abs(a).max())
        rows = [i for i in range(n) if a[i] > piv_tol * amax]
        if not rows:
            # secondary ray: entering var +t, basic var in row i changes by -t a_i
            zh = np.zeros(n)
            z0h = 0.0
            if n <= entering < 2 * n:
                zh[entering - n] = 1.0
            for i, bv in enumerate(basis):
                if n <= bv < 2 * n:
                    zh[bv - n] = -a[i]
                elif bv == 2 * n:
                    z0h = -a[i]
            return dict(status="ray", pivots=pivots, ray=(zh, z0h))
        # if z0 is a candidate at the minimum ratio, let it leave (terminate asap)
        ratios = np.array([T[i, RHS] / a[i] for i in rows])
        mn = ratios.min()
        z0rows = [i for i, rt in zip(rows, ratios) if basis[i] == 2 * n and rt <= mn + 1e-11 * (1 + abs(mn))]
        r = z0rows[0] if z0rows else _lexmin(T, rows, a, n, RHS)
    z = np.zeros(n)
    alpha = []
    for i, bv in enumerate(basis):
        if n <= bv < 2 * n:
            z[bv - n] = T[i, RHS]
            alpha.append(bv - n)
    # one refinement: complementary basis => M_aa z_a = -q_a is nonsingular
    if alpha:
        alpha = sorted(alpha)
        try:
            za = np.linalg.solve(M[np.ix_(alpha, alpha)], -q[alpha])
            if np.all(za >= -1e-12 * max(1, np.abs(za).max())):
                z = np.zeros(n)
                z[alpha] = za
        except np.linalg.LinAlgError:
            pass
    z = np.maximum(z, 0.0)
    return dict(status="solution", z=z, w=q + M @ z, pivots=pivots, basis_z=alpha)


# --------------------------------------------------------------------------------------------
# (2) dense strictly convex QP: Goldfarb-Idnani dual active set
# --------------------------------------------------------------------------------------------
def reduce_equalities(A, b, rank_tol=1e-9):
    """Greedy rank-revealing row selection (modified Gram-Schmidt, twice, on normalised rows).

    Keeps rows in the given order when they add a direction with relative residual > rank_tol.
    Every dropped row is a combination of kept rows; it is consistent iff its right-hand side is
    the same combination, checked at the minimum-norm solution of the kept rows.
    Returns kept_idx, dropped_idx, max consistency residual (scaled by row norm), min kept
    relative residual, max dropped relative residual (the rank gap).
    """
    if A.shape[0] == 0:
        return [], [], 0.0, math.inf, 0.0
    basis = []
    kept, dropped = [], []
    min_kept, max_drop = math.inf, 0.0
    for i in range(A.shape[0]):
        nrm = np.linalg.norm(A[i])
        if nrm == 0.0:
            dropped.append(i)
            continue
        v = A[i] / nrm
        for _ in range(2):
            for qv in basis:
                v = v - (qv @ v) * qv
        res = np.linalg.norm(v)
        if res > rank_tol:
            basis.append(v / res)
            kept.append(i)
            min_kept = min(min_kept, res)
        else:
            dropped.append(i)
            max_drop = max(max_drop, res)
    cons = 0.0
    if dropped:
        x0 = np.linalg.lstsq(A[kept], b[kept], rcond=None)[0]
        rr = (A[dropped] @ x0 - b[dropped]) / np.maximum(np.linalg.norm(A[dropped], axis=1), 1e-300)
        cons = float(np.abs(rr).max())
    return kept, dropped, cons, min_kept, max_drop


def qp_gi(H, f, Aeq, beq, Ain, bin_, feas_tol=1e-10, max_iter=1000, rank_tol=1e-9, cons_tol=1e-8,
          prereduce=False):
    """min 1/2 x'Hx + f'x  s.t.  Aeq x = beq,  Ain x >= bin_   (H positive definite).

    Goldfarb & Idnani (1983) as in quadprog/eiquadprog, but the factorisation
    L^{-1} N_active = Q [R; 0], J = L^{-T} Q is recomputed from scratch each step
    (numerically equivalent to the Givens updates, simpler to read).

    Dependent equality rows are detected inside the method: when equality i is added, d = J'a_i
    splits into d1 (component in span of the active normals, H^{-1} metric) and d2; if
    |d2| <= rank_tol |d|, a_i is (numerically) a combination of the rows already added, and the
    current x satisfies those rows, so a_i'x - b_i is exactly the inconsistency of the combination:
    |a_i'x - b_i| <= cons_tol (1 + |b_i|) -> row skipped (consistent), else infeasible.  This is the
    test eiquadprog reports as 'linearly dependent' failure; here it is resolved.  With
    prereduce=True rows are first selected by reduce_equalities (Euclidean Gram-Schmidt) instead.
    An inequality that cannot be added because its normal is in the span of the active set with
    no droppable multiplier (t = inf) means infeasible, unless its violation is below cons_tol
    (rounding in a degenerate vertex), in which case it is skipped.
    Returns dict(status 'optimal'|'infeasible'|'maxiter', x, iters (adds+drops of
    inequalities), neq_kept, neq_dropped, eq_cons_residual, rank_gap=(min kept |d2|/|d|,
    max skipped |d2|/|d|)).
    """
    n = len(f)
    L = np.linalg.cholesky(H)
    Linv = np.linalg.inv(L)
    x = -(Linv.T @ (Linv @ f))
    order = list(range(Aeq.shape[0]))
    if prereduce:
        kept, dropped, cons, _, _ = reduce_equalities(Aeq, beq, rank_tol)
        if cons > cons_tol:
            return dict(status="infeasible", why="inconsistent dependent equalities (pre)", x=x, iters=0,
                        neq_kept=len(kept), neq_dropped=len(dropped), eq_cons_residual=cons,
                        rank_gap=(math.inf, 0.0))
        order = kept
    info = dict(neq_kept=0, neq_dropped=Aeq.shape[0] - len(order), eq_cons_residual=0.0, iters=0)
    min_kept, max_skip = math.inf, 0.0
    act = []   # list of (kind, index, normal)
    u = np.zeros(0)

    def dirs(nv):
        qn = len(act)
        if qn == 0:
            J = Linv.T
            d = J.T @ nv
            return J @ d, np.zeros(0), d
        Nm = np.array([a[2] for a in act]).T
        Qf, Rf = np.linalg.qr(Linv @ Nm, mode="complete")
        J = Linv.T @ Qf
        d = J.T @ nv
        z = J[:, qn:] @ d[qn:]
        r = np.linalg.solve(np.triu(Rf[:qn, :qn]), d[:qn])
        return z, r, d

    for i in order:
        a = Aeq[i]
        z, r, d = dirs(a)
        qn = len(act)
        rel = np.linalg.norm(d[qn:]) / max(np.linalg.norm(d), 1e-300)
        if rel <= rank_tol:
            max_skip = max(max_skip, rel)
            res = abs(a @ x - beq[i]) / max(np.linalg.norm(a), 1e-300)
            info["eq_cons_residual"] = max(info["eq_cons_residual"], res)
            info["neq_dropped"] += 1
            if res > cons_tol * (1.0 + abs(beq[i]) / max(np.linalg.norm(a), 1e-300)):
                return dict(info, status="infeasible", why="inconsistent dependent equality %d (%.2g)" % (i, res),
                            x=x, rank_gap=(min_kept, max_skip))
            continue
        min_kept = min(min_kept, rel)
        t = (beq[i] - a @ x) / (z @ a)
        x = x + t * z
        u = np.append(u - t * r, t)
        act.append(("e", i, a))
        info["neq_kept"] += 1
    info["rank_gap"] = (min_kept, max_skip)

    rown = np.maximum(np.linalg.norm(Ain, axis=1), 1e-300) if Ain.shape[0] else np.zeros(0)
    skipped = set()
    iters = 0
    while True:
        if Ain.shape[0] == 0:
            break
        s = (Ain @ x - bin_) / rown
        blocked = {a[1] for a in act if a[0] == "i"} | skipped
        if blocked:
            s[list(blocked)] = np.inf
        p = int(np.argmin(s))
        if s[p] >= -feas_tol * (1.0 + abs(bin_[p]) / rown[p]):
            break
        ap = Ain[p]
        uplus = 0.0
        while True:
            if iters >= max_iter:
                return dict(info, status="maxiter", x=x, iters=iters)
            z, r, d = dirs(ap)
            qn = len(act)
            t1, l = math.inf, None
            for k in range(qn):
                if act[k][0] == "i" and r[k] > 1e-14:
                    ratio = u[k] / r[k]
                    if ratio < t1:
                        t1, l = ratio, k
            sp = ap @ x - bin_[p]
            if np.linalg.norm(d[qn:]) > 1e-12 * max(np.linalg.norm(d), 1e-300):
                t2 = -sp / (z @ ap)
            else:
                t2 = math.inf
            t = min(t1, t2)
            if t == math.inf:
                if -sp / rown[p] <= cons_tol * (1.0 + abs(bin_[p]) / rown[p]):
                    skipped.add(p)   # violation at rounding level in a degenerate point
                    u = u  # multipliers unchanged (uplus is dropped)
                    break
                return dict(info, status="infeasible", why="GI: no step (constraint %d, viol %.2g)" % (p, -sp),
                            x=x, iters=iters)
            iters += 1
            if t2 == math.inf:  # pure dual step, drop l
                u = u - t * r
                uplus += t
                u = np.delete(u, l)
                act.pop(l)
                continue
            x = x + t * z
            u = u - t * r
            uplus += t
            if t2 <= t1:
                u = np.append(u, uplus)
                act.append(("i", p, ap))
                break
            u = np.delete(u, l)
            act.pop(l)
    return dict(info, status="optimal", x=x, iters=iters, active=[(a[0], a[1]) for a in act],
                skipped_ineq=len(skipped))


def box_rows(n, lb, ub):
    """Bounds -> rows of Ain x >= bin (infinite ones skipped)."""
    rows, rhs = [], []
    for j in range(n):
        if lb[j] > -math.inf:
            e = np.zeros(n); e[j] = 1.0
            rows.append(e); rhs.append(lb[j])
        if ub[j] < math.inf:
            e = np.zeros(n); e[j] = -1.0
            rows.append(e); rhs.append(-ub[j])
    return rows, rhs


# --------------------------------------------------------------------------------------------
# (3) the certified path
# --------------------------------------------------------------------------------------------
class Problem:
    def __init__(self, inst):
        raw, par, lq = inst["raw"], inst["params"], inst["lcqp"]
        self.n = n = inst["n"]
        self.m = m = inst["m"]
        self.P = np.array(raw["P"], float)
        self.B = np.array(raw["Pinv"], float).T          # 7 x m
        self.N = np.array(raw["Pnull"], float)
        self.qg = np.array(raw["qdot_guide"], float)
        self.psi = np.array(raw["psi"], float)
        self.dt, self.eps = float(par["dt"]), float(par["eps"])
        self.qmax = num(par["q_dot_max"])
        self.lmax = num(par["lambda_max"])
        self.Q = np.array(lq["Q"], float)
        self.g = np.array(lq["g"], float)
        self.lb = np.array([num(v) if v is not None else -math.inf for v in lq["lb"]])
        self.ub = np.array([num(v) for v in lq["ub"]])
        self.A = np.array(lq["A"], float)
        self.lbA = np.array(lq["lbA"], float)
        self.R = np.array(lq["R"], float)
        self.lbR = np.array(lq["lbR"], float)
        # the certified-path structure
        pn2 = np.sum(self.P ** 2, axis=1)
        self.Dd = 1.0 / pn2
        self.pinv_dev = float(np.abs(self.B - self.P.T * self.Dd).max())
        self.c = self.psi - self.eps + self.dt * self.P @ self.qg
        self.S = self.dt * self.P @ self.N @ self.P.T
        self.S = 0.5 * (self.S + self.S.T)
        # consistency of raw vs assembled LCQPow data
        A_chk = np.hstack([np.eye(n), -self.N @ self.B])
        R_chk = np.hstack([self.dt * self.P, np.zeros((m, m))])
        self.assembly_dev = max(float(np.abs(A_chk - self.A).max()),
                                float(np.abs(R_chk - self.R).max()),
                                float(np.abs(self.lbR - (self.eps - self.psi)).max()),
                                float(np.abs(self.lbA - self.qg).max()))

    def objective(self, x):
        return 0.5 * x @ self.Q @ x + self.g @ x

    def residuals(self, x):
        """Feasibility of x for the ORIGINAL LCQP (from the lcqp block)."""
        lam = x[self.n:]
        wv = self.R @ x - self.lbR
        return dict(eq=float(np.abs(self.A @ x - self.lbA).max()),
                    bound=float(max(np.max(self.lb - x), np.max(x - self.ub), 0.0)),
                    compl=float(np.abs(np.minimum(lam, wv)).max()))


def solve_lcp(pb):
    """Lemke on the normalised LCP(c, S); returns mu*, w*, qdot*, lambda* or a certificate."""
    sS = np.abs(pb.S).max()
    sc = max(np.abs(pb.c).max(), 1e-300)
    out = lemke(pb.S / sS, pb.c / sc)
    res = dict(pivots=out["pivots"], status=out["status"])
    if out["status"] == "solution":
        mu = out["z"] * sc / sS
        w = pb.c + pb.S @ mu
        lam = mu / pb.Dd
        qd = pb.qg + pb.N @ pb.B @ lam
        res.update(mu=mu, w=w, lam=lam, qdot=qd, basis=out["basis_z"],
                   lcp_res=float(max(-mu.min(), -w.min(), np.abs(mu * w).max() / sc, 0.0)))
    elif out["status"] == "ray":
        y, z0h = out["ray"]
        y = y / np.abs(y).max()
        # Farkas certificate of infeasibility of {mu>=0, c + S mu >= 0}: y>=0, S y = 0, c'y < 0
        res.update(cert=dict(min_y=float(y.min()), Sy=float(np.abs(pb.S @ y).max() / sS),
                             cy=float(pb.c @ y / sc), z0h=float(z0h)))
        res["cert_ok"] = bool(y.min() >= -1e-9 and res["cert"]["Sy"] <= 1e-9 and res["cert"]["cy"] < -1e-9)
    return res


def classify(pb, lcp, tau):
    """I0 = Lemke's basic-z set alpha (w_i = 0 by construction) plus basic w_i <= tau*max(1,|c|inf)
    (degenerate pairs); I+ = the rest.  Only the degenerate ones need a tolerance."""
    alpha = set(lcp.get("basis", []))
    thr = tau * max(1.0, np.abs(pb.c).max())
    I0 = [i for i in range(pb.m) if i in alpha or lcp["w"][i] <= thr]
    Ip = [i for i in range(pb.m) if i not in I0]
    return Ip, I0


def path_H1(pb, lcp, tau=1e-11):
    """Brief's hypothesis: QP in x over the index-set polyhedron."""
    n, m = pb.n, pb.m
    nv = n + m
    Ip, I0 = classify(pb, lcp, tau)
    Aeq = [np.hstack([np.eye(n), -pb.N @ pb.B])]       # kinematic rows first
    beq = [pb.qg]
    for i in Ip:                                         # lambda_i = 0
        e = np.zeros(nv); e[n + i] = 1.0
        Aeq.append(e[None, :]); beq.append(np.zeros(1))
    for i in I0:                                         # w_i = 0
        Aeq.append(pb.R[i][None, :]); beq.append(pb.lbR[i:i + 1])
    Aeq = np.vstack(Aeq); beq = np.concatenate(beq)
    rows, rhs = [], []
    for i in Ip:                                         # w_i >= 0
        rows.append(pb.R[i]); rhs.append(pb.lbR[i])
    lb = pb.lb.copy(); ub = pb.ub.copy()
    for i in Ip:                                         # lambda_i fixed by equality
        lb[n + i] = -math.inf; ub[n + i] = math.inf
    br, bb = box_rows(nv, lb, ub)
    Ain = np.array(rows + br).reshape(-1, nv); bin_ = np.array(rhs + bb)
    r = qp_gi(pb.Q, pb.g, Aeq, beq, Ain, bin_)
    r["nI0"] = len(I0)
    return r


def path_V(pb, lcp, delta_rel=1e-12):
    """Classification-free in x: kinematic rows, qdot = qdot*, c'D lambda <= c'mu* + delta."""
    n, m = pb.n, pb.m
    nv = n + m
    Aeq = np.vstack([np.hstack([np.eye(n), -pb.N @ pb.B]), np.hstack([np.eye(n), np.zeros((n, m))])])
    beq = np.concatenate([pb.qg, lcp["qdot"]])
    cD = pb.c * pb.Dd
    delta = delta_rel * (1.0 + abs(pb.c) @ lcp["mu"])
    rows = [np.concatenate([np.zeros(n), -cD])]
    rhs = [-(pb.c @ lcp["mu"]) - delta]
    br, bb = box_rows(nv, pb.lb, pb.ub)
    Ain = np.array(rows + br).reshape(-1, nv); bin_ = np.array(rhs + bb)
    return qp_gi(pb.Q, pb.g, Aeq, beq, Ain, bin_)


def path_R(pb, lcp, delta_rel=1e-12, box_tol=1e-9):
    """Reduced: qdot* is unique on SOL -> box check, then min-cost lambda over SOL."""
    n, m = pb.n, pb.m
    qd = lcp["qdot"]
    if np.any(qd > pb.ub[:n] + box_tol) or np.any(qd < pb.lb[:n] - box_tol):
        return dict(status="infeasible", why="qdot* outside box", iters=0, neq_kept=0, neq_dropped=0,
                    eq_cons_residual=0.0, rank_gap=(math.inf, 0.0))
    NB = pb.N @ pb.B
    Aeq = NB
    beq = NB @ lcp["lam"]
    cD = pb.c * pb.Dd
    delta = delta_rel * (1.0 + abs(pb.c) @ lcp["mu"])
    rows = [-cD]
    rhs = [-(pb.c @ lcp["mu"]) - delta]
    br, bb = box_rows(m, pb.lb[n:], pb.ub[n:])
    Ain = np.array(rows + br).reshape(-1, m); bin_ = np.array(rhs + bb)
    Hl = pb.Q[n:, n:]
    fl = pb.Q[n:, :n] @ qd + pb.g[n:]
    r = qp_gi(Hl, fl, Aeq, beq, Ain, bin_)
    if r["status"] == "optimal":
        r["x"] = np.concatenate([qd, r["x"]])
    return r


def path_U(pb, lcp, tau=1e-11, sv_tol=1e-10):
    """What a C++ filter would run: Lemke point if lambda is provably unique on SOL, else R.

    SOL is inside {mu_I+ = 0, S[I0,I0] mu_I0 = -c_I0}; if S[I0,I0] is nonsingular, mu (hence
    lambda) is unique and the Lemke point is the LCQP optimum (after the qdot box check).
    Without degenerate pairs (w_i = mu_i = 0) I0 is exactly Lemke's basic z set, whose S block is
    a basis block and so nonsingular: no QP at all.
    """
    _, I0 = classify(pb, lcp, tau)
    if I0:
        sv = np.linalg.svd(pb.S[np.ix_(I0, I0)], compute_uv=False)
        unique = sv.min() > sv_tol * max(sv.max(), 1e-300)
    else:
        unique = True
    if unique:
        r = path_L(pb, lcp)
        r["qp_needed"] = False
        return r
    r = path_R(pb, lcp)
    r["qp_needed"] = True
    return r


def path_L(pb, lcp, box_tol=1e-9):
    """Lemke point [qdot*; lambda*] checked against all bounds (qdot box and lambda <= lambda_max)."""
    x = np.concatenate([lcp["qdot"], lcp["lam"]])
    if np.any(x > pb.ub + box_tol * np.maximum(1.0, np.abs(pb.ub))) or np.any(x < pb.lb - box_tol):
        return dict(status="infeasible", iters=0)
    return dict(status="optimal", x=x, iters=0)


# --------------------------------------------------------------------------------------------
# structure probe: general Pinv / mass-weighted variants (no reference optimum: just the LCP)
# --------------------------------------------------------------------------------------------
def enumerate_lcp(M, q, tol=1e-9):
    """All complementary-basis solutions of LCP(q,M) (m <= 8): list of z."""
    m = len(q)
    sols = []
    for mask in range(1 << m):
        a = [i for i in range(m) if mask >> i & 1]
        z = np.zeros(m)
        if a:
            Maa = M[np.ix_(a, a)]
            if abs(np.linalg.det(Maa)) < 1e-14:
                continue
            z[a] = np.linalg.solve(Maa, -q[a])
        w = q + M @ z
        if z.min() >= -tol and w.min() >= -tol:
            sols.append(z)
    return sols


def structure_probe(instances, seed=1):
    rng = np.random.default_rng(seed)
    stats = dict(n=0, a_nonsym=0, a_notpsd=0, a_multi_qdot=0, a_nsol_max=0, a_lemke_fail=0,
                 a_minsym=[], b_psd_ok=0, b_multi_qdot=0, cnt_enum=0)
    for inst in instances:
        pb = Problem(inst)
        m, n = pb.m, pb.n
        # random SPD "inverse mass matrix" with Panda-like spread of joint inertias
        Qr = np.linalg.qr(rng.standard_normal((n, n)))[0]
        W = Qr @ np.diag(np.exp(rng.uniform(np.log(0.3), np.log(30.0), n))) @ Qr.T   # Minv
        J = np.array(inst["raw"]["J"], float)[:3]
        # (a) dynamically consistent Pinv_i = W P_i'/(P_i W P_i'), Euclidean Pnull (as FLIQC would
        #     do with a user-given projector_dist_to_control)
        Da = 1.0 / np.einsum("ij,jk,ik->i", pb.P, W, pb.P)
        Ma = pb.dt * pb.P @ pb.N @ W @ pb.P.T * Da[None, :]
        K = pb.dt * pb.P @ pb.N @ W @ pb.P.T
        stats["n"] += 1
        sym = 0.5 * (K + K.T)
        if np.abs(K - K.T).max() > 1e-9 * np.abs(K).max():
            stats["a_nonsym"] += 1
        ev = np.linalg.eigvalsh(sym).min() / np.abs(K).max()
        stats["a_minsym"].append(ev)
        if ev < -1e-9:
            stats["a_notpsd"] += 1
        # (b) dynamically consistent nullspace N_W = I - W J'(J W J')^-1 J  ->  N_W W symmetric PSD
        NW = np.eye(n) - W @ J.T @ np.linalg.solve(J @ W @ J.T, J)
        Kb = pb.dt * pb.P @ NW @ W @ pb.P.T
        if np.abs(Kb - Kb.T).max() <= 1e-9 * np.abs(Kb).max() and \
                np.linalg.eigvalsh(0.5 * (Kb + Kb.T)).min() >= -1e-9 * np.abs(Kb).max():
            stats["b_psd_ok"] += 1
        if m <= 8:
            stats["cnt_enum"] += 1
            sols = enumerate_lcp(Ma, pb.c)
            qds = []
            for z in sols:
                qd = pb.qg + pb.N @ W @ pb.P.T @ (Da * z)
                if not any(np.abs(qd - o).max() < 1e-7 for o in qds):
                    qds.append(qd)
            if len(qds) > 1:
                stats["a_multi_qdot"] += 1
            stats["a_nsol_max"] = max(stats["a_nsol_max"], len(qds))
            lm = lemke(Ma / np.abs(Ma).max(), pb.c / np.abs(pb.c).max())
            if lm["status"] != "solution" and sols:
                stats["a_lemke_fail"] += 1
            Db = 1.0 / np.einsum("ij,jk,ik->i", pb.P, W, pb.P)
            Mb = Kb * Db[None, :]
            solsb = enumerate_lcp(Mb, pb.c)
            qdb = []
            for z in solsb:
                qd = pb.qg + NW @ W @ pb.P.T @ (Db * z)
                if not any(np.abs(qd - o).max() < 1e-7 for o in qdb):
                    qdb.append(qd)
            if len(qdb) > 1:
                stats["b_multi_qdot"] += 1
    return stats


# --------------------------------------------------------------------------------------------
# stress tests: degenerate / rank-deficient variants of the feasible instances
# --------------------------------------------------------------------------------------------
def make_inst(base, P, Pinv, psi, lambda_max=None):
    """Re-assemble an instance (raw + LCQPow dense form, as in the schema) for new rows."""
    raw = dict(base["raw"])
    par = dict(base["params"])
    if lambda_max is not None:
        par["lambda_max"] = lambda_max
    n = base["n"]
    m = P.shape[0]
    qg = np.array(raw["qdot_guide"], float)
    N = np.array(raw["Pnull"], float)
    k = float(par["lambda_cost_penalty"])
    raw.update(P=P.tolist(), Pinv=Pinv.tolist(), psi=psi.tolist())
    Q = np.zeros((n + m, n + m)); Q[:n, :n] = np.eye(n); Q[n:, n:] = k * np.eye(m)
    qmax = num(par["q_dot_max"]); lmax = num(par["lambda_max"])
    lq = dict(Q=Q.tolist(), g=[0.0] * (n + m),
              A=np.hstack([np.eye(n), -N @ Pinv.T]).tolist(), lbA=qg.tolist(),
              R=np.hstack([par["dt"] * P, np.zeros((m, m))]).tolist(),
              lbR=(par["eps"] - psi).tolist(),
              lb=[-qmax] * n + [0.0] * m, ub=[qmax] * n + ["DBL_MAX" if lmax == math.inf else lmax] * m)
    return dict(id=base["id"], n=n, m=m, params=par, raw=raw, lcqp=lq)


def enum_global(pb):
    """Independent reference: best of all 2^m complementarity branches, each a GI QP."""
    n, m = pb.n, pb.m
    nv = n + m
    best = None
    for mask in range(1 << m):
        Aeq = [np.hstack([np.eye(n), -pb.N @ pb.B])]; beq = [pb.qg]
        rows, rhs = [], []
        lb = pb.lb.copy(); ub = pb.ub.copy()
        for i in range(m):
            if mask >> i & 1:           # w_i = 0, lambda_i >= 0
                Aeq.append(pb.R[i][None, :]); beq.append(pb.lbR[i:i + 1])
            else:                       # lambda_i = 0, w_i >= 0
                e = np.zeros(nv); e[n + i] = 1.0
                Aeq.append(e[None, :]); beq.append(np.zeros(1))
                lb[n + i] = -math.inf; ub[n + i] = math.inf
                rows.append(pb.R[i]); rhs.append(pb.lbR[i])
        br, bb = box_rows(nv, lb, ub)
        Ain = np.array(rows + br).reshape(-1, nv)
        r = qp_gi(pb.Q, pb.g, np.vstack(Aeq), np.concatenate(beq), Ain, np.array(rhs + bb), cons_tol=1e-9)
        if r["status"] == "optimal":
            f = pb.objective(r["x"])
            if best is None or f < best[0] - 1e-12:
                best = (f, r["x"])
    return best


def stress(insts, rng_seed=7):
    rng = np.random.default_rng(rng_seed)
    out = {}
    variants = ["H1", "V", "R", "U", "L"]
    fns = dict(H1=path_H1, V=path_V, R=path_R, U=path_U, L=path_L)

    def record(kind, x_ref, pb, lcp, extra=None):
        T = out.setdefault(kind, {v: dict(ok=0, bad=0, err=0.0, it=[], drop=[]) for v in variants})
        T.setdefault("_n", 0)
        T["_n"] += 1
        for v in variants:
            if lcp["status"] != "solution":
                r = dict(status="infeasible")
            else:
                r = fns[v](pb, lcp)
            if x_ref is None:
                good = r["status"] != "optimal"
                err = 0.0
            else:
                good = r["status"] == "optimal" and np.abs(r["x"] - x_ref).max() <= 1e-6
                err = np.abs(r["x"] - x_ref).max() if r["status"] == "optimal" else math.inf
            T[v]["ok" if good else "bad"] += 1
            T[v]["err"] = max(T[v]["err"], err)
            T[v]["it"].append(r.get("iters", 0))
            if "neq_dropped" in r:
                T[v]["drop"].append(r["neq_dropped"])
            if v == "U":
                T.setdefault("_qp_needed", 0)
                T["_qp_needed"] += int(r.get("qp_needed", False))

    for inst in insts:
        if not inst["global"]["feasible"] or inst["m"] > 8:
            continue
        pb0 = Problem(inst)
        lcp0 = solve_lcp(pb0)
        if lcp0["status"] != "solution":
            continue
        P, Pinv, psi = pb0.P, pb0.B.T, pb0.psi
        x0 = np.array(inst["global"]["x"], float)
        n, m = pb0.n, pb0.m
        alpha = [i for i in range(m) if lcp0["mu"][i] > 0]
        if alpha:
            # (i) every active row duplicated: |I0| = 2|alpha| > rank; closed form: lambda_i splits in halves
            P2 = np.vstack([P, P[alpha]]); Pi2 = np.vstack([Pinv, Pinv[alpha]]); psi2 = np.concatenate([psi, psi[alpha]])
            pb = Problem(make_inst(inst, P2, Pi2, psi2))
            lam = x0[n:].copy(); lam[alpha] *= 0.5
            xref = np.concatenate([x0[:n], lam, x0[n:][alpha] * 0.5])
            record("dup_active_rows", xref, pb, solve_lcp(pb))
            # (i-b) same with lambda_max = 0.6 max(lambda*): halves fit, the unique original does not
            lm = 0.6 * x0[n:].max()
            pb = Problem(make_inst(inst, P2, Pi2, psi2, lambda_max=lm))
            record("dup_rows+lambda_max", xref, pb, solve_lcp(pb))
            pb = Problem(make_inst(inst, P, Pinv, psi, lambda_max=lm))
            record("orig+lambda_max(infeas)", None, pb, solve_lcp(pb))
            # (i') one active row duplicated three times (4 identical rows, rank 1)
            i = alpha[0]
            P3 = np.vstack([P] + [P[i:i + 1]] * 3); Pi3 = np.vstack([Pinv] + [Pinv[i:i + 1]] * 3)
            psi3 = np.concatenate([psi, [psi[i]] * 3])
            pb = Problem(make_inst(inst, P3, Pi3, psi3))
            lam = x0[n:].copy(); lam[i] *= 0.25
            xref = np.concatenate([x0[:n], lam, [x0[n + i] * 0.25] * 3])
            record("quad_row", xref, pb, solve_lcp(pb))
            # (i'') a scaled copy (P_j = 2 P_i, psi_j chosen so that w_j = 2 w_i... not identical rows):
            #   w_j = psi_j - eps + dt 2 P_i qdot = 0 whenever w_i = 0 iff psi_j - eps = 2 (psi_i - eps)
            P4 = np.vstack([P, 2 * P[i:i + 1]]); Pi4 = np.vstack([Pinv, Pinv[i:i + 1] * 0.5])
            psi4 = np.concatenate([psi, [pb0.eps + 2 * (psi[i] - pb0.eps)]])
            pb = Problem(make_inst(inst, P4, Pi4, psi4))
            if m + 1 <= 9:
                ref = enum_global(pb)
                record("scaled_copy(enum)", None if ref is None else ref[1], pb, solve_lcp(pb))
        Ip = [i for i in range(m) if lcp0["w"][i] > 1e-9]
        if Ip:
            # (ii) degenerate pair: move psi_i so that w*_i = 0 while mu*_i = 0
            i = Ip[0]
            psi5 = psi.copy(); psi5[i] -= lcp0["w"][i]
            pb = Problem(make_inst(inst, P, Pinv, psi5))
            ref = enum_global(pb)
            record("degenerate_pair(enum)", None if ref is None else ref[1], pb, solve_lcp(pb))
        if alpha and m + 1 <= 9:
            # (iii) nearly parallel copy of an active row (relative perturbation 1e-6)
            i = alpha[0]
            dP = rng.standard_normal(n); dP *= 1e-6 * np.linalg.norm(P[i]) / np.linalg.norm(dP)
            Pn = P[i] + dP
            P6 = np.vstack([P, Pn]); Pi6 = np.vstack([Pinv, Pn / (Pn @ Pn)]); psi6 = np.concatenate([psi, [psi[i]]])
            pb = Problem(make_inst(inst, P6, Pi6, psi6))
            ref = enum_global(pb)
            record("near_parallel_1e-6(enum)", None if ref is None else ref[1], pb, solve_lcp(pb))
    return out


# --------------------------------------------------------------------------------------------
def pct(v):
    v = sorted(v)
    if not v:
        return "-"
    return "%g/%g" % (v[len(v) // 2], v[-1])


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quiet = "--quiet" in sys.argv
    path = args[0] if args else DEFAULT_JSON
    t0 = time.time()
    data = json.load(open(path))
    insts = data["instances"]
    variants = ["H1", "V", "R", "L", "U"]
    fns = dict(H1=path_H1, V=path_V, R=path_R, L=path_L, U=path_U)
    ms = sorted({i["m"] for i in insts})
    tally = {v: {m: dict(fc=0, ic=0, wrong=0, errs=[], oerr=[], iters=[], neq_drop=[], neq_kept=[]) for m in ms}
             for v in variants}
    piv = {m: [] for m in ms}
    cause = {m: dict(ray=0, box=0, feas_glob=0) for m in ms}
    cert_worst = dict(Sy=0.0, cy=-math.inf, min_y=0.0)
    worst = {v: (0.0, None) for v in variants}
    failures = []
    certs_bad = 0
    lcp_stats = dict(ray=0, sol=0, box_infeasible=0, min_wgap=[], degenerate=0, maxres=0.0,
                     lemke_unique_lambda=0, max_box_margin_infeas=math.inf, asm=0.0, pinv=0.0,
                     min_box_slack_feas=math.inf)
    for inst in insts:
        pb = Problem(inst)
        lcp_stats["asm"] = max(lcp_stats["asm"], pb.assembly_dev)
        lcp_stats["pinv"] = max(lcp_stats["pinv"], pb.pinv_dev)
        gl = inst["global"]
        gfeas = bool(gl["feasible"])
        gx = np.array(gl["x"], float) if gfeas else None
        lcp = solve_lcp(pb)
        piv[pb.m].append(lcp["pivots"])
        if lcp["status"] == "ray":
            lcp_stats["ray"] += 1
            cause[pb.m]["ray"] += 1
            for k in ("Sy", "cy"):
                cert_worst[k] = max(cert_worst[k], lcp["cert"][k])
            cert_worst["min_y"] = min(cert_worst["min_y"], lcp["cert"]["min_y"])
            if not lcp["cert_ok"]:
                certs_bad += 1
                failures.append((inst["id"], "LCP", "bad ray certificate %s" % lcp["cert"]))
        elif lcp["status"] == "solution":
            lcp_stats["sol"] += 1
            lcp_stats["maxres"] = max(lcp_stats["maxres"], lcp["lcp_res"])
            w, mu = lcp["w"], lcp["mu"]
            # degenerate pairs: w_i ~ 0 and mu_i ~ 0 simultaneously
            sw = np.abs(pb.c).max()
            deg = [(i) for i in range(pb.m) if w[i] <= 1e-9 * sw and mu[i] * pb.S.max() <= 1e-9 * sw]
            if deg:
                lcp_stats["degenerate"] += 1
            # gap in w between "zero" and "positive" entries
            wz = [w[i] for i in range(pb.m) if w[i] > 1e-9]
            lcp_stats["min_wgap"].append((min(wz) if wz else math.inf, max([w[i] for i in range(pb.m) if w[i] <= 1e-9] + [0.0])))
            qd = lcp["qdot"]
            slack = pb.qmax - np.abs(qd).max()
            if slack < 0:
                cause[pb.m]["box"] += 1
                lcp_stats["box_infeasible"] += 1
                lcp_stats["max_box_margin_infeas"] = min(lcp_stats["max_box_margin_infeas"], -slack)
            else:
                lcp_stats["min_box_slack_feas"] = min(lcp_stats["min_box_slack_feas"], slack)
        else:
            failures.append((inst["id"], "LCP", "Lemke max pivots"))
        for v in variants:
            T = tally[v][pb.m]
            if lcp["status"] != "solution":
                r = dict(status="infeasible", iters=0)
            else:
                r = fns[v](pb, lcp)
            T["iters"].append(r.get("iters", 0))
            if "neq_dropped" in r:
                T["neq_drop"].append(r["neq_dropped"])
                T["neq_kept"].append(r["neq_kept"])
            feas = r["status"] == "optimal"
            if r["status"] not in ("optimal", "infeasible"):
                failures.append((inst["id"], v, "QP status %s" % r["status"]))
            if feas and gfeas:
                x = r["x"]
                err = float(np.abs(x - gx).max())
                oerr = abs(pb.objective(x) - gl["objective"]) / max(1.0, abs(gl["objective"]))
                res = pb.residuals(x)
                T["errs"].append(err)
                T["oerr"].append(oerr)
                if err > worst[v][0]:
                    worst[v] = (err, inst["id"])
                if err <= 1e-6:
                    T["fc"] += 1
                else:
                    T["wrong"] += 1
                    failures.append((inst["id"], v, "x err %.3g obj rel err %.3g res %s" % (err, oerr, res)))
                if v == "L" and err <= 1e-6:
                    lcp_stats["lemke_unique_lambda"] += 1
            elif not feas and not gfeas:
                T["ic"] += 1
            else:
                T["wrong"] += 1
                failures.append((inst["id"], v, "ours %s (%s), global feasible=%s" % (
                    r["status"], r.get("why", ""), gfeas)))
    t_main = time.time() - t0

    print("FLIQC certified monotone path: %d instances from %s" % (len(insts), path))
    print("raw-vs-lcqp assembly max dev %.2g; max |Pinv - P'/|P|^2| %.2g" % (lcp_stats["asm"], lcp_stats["pinv"]))
    print("Lemke: %d solutions (max LCP residual %.2g), %d secondary rays, %d bad certificates; "
          "%d LCP-solvable but qdot* outside box" % (lcp_stats["sol"], lcp_stats["maxres"], lcp_stats["ray"],
                                                     certs_bad, lcp_stats["box_infeasible"]))
    print("  infeasibility causes per m (LCP ray / qdot* outside box):",
          ", ".join("m=%d: %d/%d" % (m, cause[m]["ray"], cause[m]["box"]) for m in ms))
    print("  worst ray certificate (y scaled to max 1): min y %.2g, max |S y|/max|S| %.2g, max c'y/max|c| %.2g"
          % (cert_worst["min_y"], cert_worst["Sy"], cert_worst["cy"]))
    print("  smallest box violation among box-infeasible: %.3g rad/s; smallest box slack among box-feasible: %.3g"
          % (lcp_stats["max_box_margin_infeas"], lcp_stats["min_box_slack_feas"]))
    gaps = lcp_stats["min_wgap"]
    print("  w* classification gap: smallest w_i > 1e-9 is %.3g, largest w_i <= 1e-9 is %.3g; "
          "%d instances with a degenerate pair (w_i = mu_i = 0)" % (
              min(g[0] for g in gaps), max(g[1] for g in gaps), lcp_stats["degenerate"]))
    print()
    print("%-3s %3s | %5s %5s %5s | %-22s | %-12s | %-10s | %s" % ("var", "m", "feasOK", "infOK", "wrong",
          "max|x-x*|inf / max relobj", "QP ineq it", "eq added", "eq skipped (dependent)   [med/max]"))
    for v in variants:
        for m in ms:
            T = tally[v][m]
            print("%-3s %3d | %6d %5d %5d | %9.2g / %-10.2g | %-12s | %-10s | %s" % (
                v, m, T["fc"], T["ic"], T["wrong"], max(T["errs"] + [0]), max(T["oerr"] + [0]), pct(T["iters"]),
                pct(T["neq_kept"]), pct(T["neq_drop"])))
    print()
    print("Lemke pivots per m (median/max):", ", ".join("m=%d: %s" % (m, pct(piv[m])) for m in ms))
    print("worst feasible x error per variant:", {v: ("%.2g" % worst[v][0], worst[v][1]) for v in variants})
    print("Lemke-only point equals global x (lambda unique on SOL) on %d feasible instances" % lcp_stats["lemke_unique_lambda"])
    if failures:
        print("\nFAILURES (%d):" % len(failures))
        for f in failures[:60]:
            print("  ", f)
    else:
        print("\nno failures")
    print("\n[main comparison %.1f s]" % t_main)

    # tolerance sensitivity of H1
    print("\nH1 sensitivity to the degenerate-pair threshold tau (I0 = Lemke basis + {w_i <= tau max(1,|c|)}),"
          " wrong count over all 250:")
    for tau in (0.0, 1e-14, 1e-11, 1e-9, 1e-6, 1e-4, 1e-3):
        wrong = 0
        for inst in insts:
            pb = Problem(inst)
            gl = inst["global"]
            lcp = solve_lcp(pb)
            if lcp["status"] != "solution":
                wrong += bool(gl["feasible"])
                continue
            r = path_H1(pb, lcp, tau=tau)
            if r["status"] == "optimal":
                wrong += (not gl["feasible"]) or np.abs(r["x"] - np.array(gl["x"])).max() > 1e-6
            else:
                wrong += bool(gl["feasible"])
        print("  tau=%g: wrong %d" % (tau, wrong))

    if "--no-stress" not in sys.argv:
        t1 = time.time()
        st = stress(insts)
        print("\nstress tests on the feasible m<=8 instances (reference: closed form, or own 2^m enumeration '(enum)'):")
        for kind, T in st.items():
            line = "  %-26s n=%3d" % (kind, T["_n"])
            for v in ["H1", "V", "R", "U", "L"]:
                line += " | %s ok %d bad %d err %.1g it %s" % (v, T[v]["ok"], T[v]["bad"], T[v]["err"], pct(T[v]["it"]))
                if T[v]["drop"]:
                    line += " skip %s" % pct(T[v]["drop"])
            line += " | U ran a QP on %d" % T.get("_qp_needed", 0)
            print(line)
        print("[stress %.1f s]" % (time.time() - t1))

    if "--no-probe" not in sys.argv:
        t1 = time.time()
        st = structure_probe(insts)
        print("\nstructure probe (random SPD Minv, eigenvalues in [0.3, 30]; %d instances, enumeration on %d with m<=8):"
              % (st["n"], st["cnt_enum"]))
        print("  (a) Pinv_i = Minv P_i'/(P_i Minv P_i'), Euclidean Pnull: P N Minv P' nonsymmetric on %d (all m>=2), "
              "symmetric part indefinite on %d (min rel eig %.3g); >1 distinct qdot among LCP solutions on %d "
              "(max %d); Lemke ray although a solution exists on %d"
              % (st["a_nonsym"], st["a_notpsd"], min(st["a_minsym"]), st["a_multi_qdot"], st["a_nsol_max"],
                 st["a_lemke_fail"]))
        print("  (b) same Pinv with dynamically consistent N_W = I - Minv J'(J Minv J')^-1 J: symmetric PSD on %d/%d, "
              ">1 distinct qdot on %d" % (st["b_psd_ok"], st["n"], st["b_multi_qdot"]))
        print("[probe %.1f s]" % (time.time() - t1))


if __name__ == "__main__":
    main()

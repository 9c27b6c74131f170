@PRELUDE@
// The right eigenvectors of a real n×n matrix as complex columns, from
// geev's real VR (column-major, LAPACK's packing) and complex eigenvalues
// w: a real eigenvalue's vector is its own column of VR; a conjugate pair
// (w[j].im > 0 and w[j + 1] = conj(w[j])) has the vectors
// VR[:, j] ± i VR[:, j + 1]. v is C-order (n, n).
extern "C" __global__ void cuprite_eig_unpack(const @R@* vr, const @C@* w, @C@* v,
                                              long long n) {
  long long total = n * n;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    long long r = i / n, c = i - r * n;
    @R@ im = w[c].im;
    @R@ re_part = vr[c * n + r], im_part = 0;
    if (im > 0 && c + 1 < n) {
      im_part = vr[(c + 1) * n + r];
    } else if (im < 0 && c > 0) {
      re_part = vr[(c - 1) * n + r];
      im_part = -vr[c * n + r];
    }
    v[i] = mk(re_part, im_part);
  }
}

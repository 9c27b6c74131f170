    case @INDEX@: { // @NAME@ @DTYPE@
@SCALARS@
      for (unsigned int i = first; i < n; i += stride) {
@LOADS@
        ((@OUT@*)op.out)[i] = (@EXPR@);
      }
      break;
    }

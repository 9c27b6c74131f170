//! The generators user kernels use: the elementwise generator
//! (`cuda/codegen.rs`) and the reduction generator (`cuda/reduce.rs`, the
//! one that also builds the built-in reductions; its `ReductionKernel`
//! template is `cuda/reduce_user.cu`).

pub(crate) use crate::cuda::codegen::{
    c_type_size, carray_bytes, elementwise_geo, elementwise_source, vector_lanes, GenParam, Pass,
};
pub(crate) use crate::cuda::reduce::{
    c_reduce_type, user_source as reduction_source, RedGeo, RedSource, RED_THREADS,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    fn p(name: &str, pass: Pass, actual: DType, ty: DType, out: bool) -> GenParam {
        GenParam {
            name: name.into(),
            pass,
            actual,
            ty,
            out,
        }
    }

    #[test]
    fn reduction_source_has_map_reduce_post_and_a_finishing_kernel() {
        let f = DType::Float32;
        let params = [
            p("x", Pass::Each, f, f, false),
            p("y", Pass::Each, f, f, true),
        ];
        let src = reduction_source(&RedSource {
            name: "sum_squares",
            map_expr: "x * x",
            reduce_expr: "a + b",
            post_map_expr: "y = a",
            identity: "0",
            reduce_type: "float",
            preamble: "",
            placeholders: &[],
            params: &params,
            kd: 0,
            rd: 1,
            red_contiguous: true,
        });
        assert!(src.contains("typedef float _type_reduce;"));
        assert!(src.contains("_type_reduce _cp_map(const float x, const _cp_Size& _in_ind, const _cp_Size& _out_ind) { return static_cast<_type_reduce>(\n#line 1 \"map_expr\"\nx * x\n"), "{src}");
        assert!(src.contains("#line 1 \"reduce_expr\"\na + b\n"));
        assert!(src.contains("#line 1 \"post_map_expr\"\ny = a;\n"));
        assert!(src.contains("extern \"C\" __global__ void sum_squares(const float* _raw_x, float* _raw_y, _type_reduce* _partial, const _cp_Geo _g, const long long _rows, const long long _len)"), "{src}");
        assert!(src.contains("extern \"C\" __global__ void sum_squares_finish("));
        assert!(src.contains("_type_reduce _s = _type_reduce(0);"));
        assert!(src.contains("_o_x += _j * _g.v[1];"), "{src}");
        assert!(src.contains("_cp_post(_sh[0], _raw_y[_k_y], _in_ind, _out_ind);"));
        assert_eq!(c_reduce_type("float64"), "double");
    }
}

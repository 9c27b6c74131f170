//! Several GPUs (`cp::nccl`): communicators and collectives through NCCL.

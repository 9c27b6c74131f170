//! NCCL communicators and collectives.

//! Convolution and filtering kernels for cp::signal.

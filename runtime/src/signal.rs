//! Signal processing (`cp::signal`): convolution, filters, windows and spectra.

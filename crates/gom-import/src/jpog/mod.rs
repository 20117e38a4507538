//! Jurassic Park: Operation Genesis models (TMD + TKL + TML) into GOM.

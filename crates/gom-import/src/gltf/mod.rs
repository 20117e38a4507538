//! glTF 2.0 into GOM, and GOM out to glTF 2.0.

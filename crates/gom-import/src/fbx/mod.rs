//! FBX into GOM, through ufbx.

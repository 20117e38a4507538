//! Nodes into the GOM skeleton: parents first (depth-first in file order), bind pose
//! from the node matrices, inverse binds from the node data.

use std::collections::BTreeSet;

use gom::{Bone, Mat4};
use jpog::scene::SkeletonNode;

use super::axes::Basis;
use super::error::JpogImportError;
use crate::report::Report;

/// GOM's limit on bones (D12).
const MAX_BONES: usize = gom::limits::MAX_BONES as usize;

/// The skeleton with the mapping between node and bone indices.
#[derive(Debug, Clone)]
pub(crate) struct Skeleton {
    /// Bones in GOM order.
    pub bones: Vec<Bone>,
    /// For each node (file order), its bone index.
    pub node_bone: Vec<u16>,
    /// For each bone, its node index.
    pub bone_node: Vec<usize>,
    /// Per bone, the inverse bind matrix in GOM axes.
    pub inverse_bind: Vec<Mat4>,
    /// Per node (file order), the rest translation in GOM axes.
    pub rest_translation: Vec<[f32; 3]>,
    /// Per node (file order), the rest rotation in GOM axes.
    pub rest_rotation: Vec<[f32; 4]>,
}

fn flat(rows: &[[f32; 4]; 4]) -> Mat4 {
    let mut m = [0.0f32; 16];
    for (i, r) in rows.iter().enumerate() {
        m[i * 4..i * 4 + 4].copy_from_slice(r);
    }
    m
}

/// Inverse of an affine matrix in f64; `None` when its 3x3 part is (nearly) singular.
fn inverse64(m: &[f64; 16]) -> Option<[f64; 16]> {
    gom::math::inverse_affine_f64(m, 1e-12)
}

fn to64(m: &Mat4) -> [f64; 16] {
    m.map(f64::from)
}

fn to32(m: &[f64; 16]) -> Mat4 {
    // `+ 0.0` writes +0.0 for zero (D13's canonical zero).
    m.map(|v| v as f32 + 0.0)
}

/// Checks that a stored matrix is finite and affine (last column 0, 0, 0, 1).
fn check_matrix(
    file: &str,
    record: &str,
    field: &str,
    m: &Mat4,
    report: &mut Report,
) -> Result<Mat4, JpogImportError> {
    if m.iter().any(|v| !v.is_finite()) {
        return Err(JpogImportError::Invalid {
            file: file.to_string(),
            record: record.to_string(),
            problem: format!("the {field} matrix holds a value that is not finite"),
        });
    }
    let mut out = *m;
    let col = [m[3], m[7], m[11], m[15]];
    if col != [0.0, 0.0, 0.0, 1.0] {
        report.warn(format!(
            "{record}: the {field} matrix's last column is {col:?}, not (0, 0, 0, 1); it is read as an affine matrix"
        ));
        out[3] = 0.0;
        out[7] = 0.0;
        out[11] = 0.0;
        out[15] = 1.0;
    }
    Ok(out)
}

/// The order bones take: each root in file order followed depth-first by its
/// descendants, children in file order.
pub(crate) fn bone_order(nodes: &[SkeletonNode]) -> Vec<usize> {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut roots = Vec::new();
    for n in nodes {
        match n.parent {
            Some(p) if p < nodes.len() => children[p].push(n.index),
            _ => roots.push(n.index),
        }
    }
    let mut order = Vec::with_capacity(nodes.len());
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(children[i].iter().rev().copied());
    }
    order
}

/// Builds the skeleton from the model's nodes (parents already checked acyclic).
pub(crate) fn build(
    file: &str,
    nodes: &[SkeletonNode],
    basis: &Basis,
    report: &mut Report,
) -> Result<Skeleton, JpogImportError> {
    if nodes.len() > MAX_BONES {
        return Err(JpogImportError::Invalid {
            file: file.to_string(),
            record: "header".into(),
            problem: format!(
                "{} nodes, more than the {MAX_BONES} bones GOM v1 allows",
                nodes.len()
            ),
        });
    }
    let order = bone_order(nodes);
    let mut node_bone = vec![0u16; nodes.len()];
    for (b, &n) in order.iter().enumerate() {
        // b < MAX_BONES, so it fits in u16
        node_bone[n] = b as u16;
    }
    // model-space bind matrices in GOM axes, per node
    let mut bind = Vec::with_capacity(nodes.len());
    let mut rest_translation = Vec::with_capacity(nodes.len());
    let mut rest_rotation = Vec::with_capacity(nodes.len());
    for n in nodes {
        let record = format!("node {} \"{}\"", n.index, n.name);
        let m = check_matrix(file, &record, "bind", &flat(&n.bind), report)?;
        bind.push(basis.mat4(&m));
        if n.rest_translation
            .iter()
            .chain(n.rest_rotation.iter())
            .any(|v| !v.is_finite())
        {
            return Err(JpogImportError::Invalid {
                file: file.to_string(),
                record,
                problem: "the rest rotation or translation holds a value that is not finite".into(),
            });
        }
        rest_translation.push(basis.vector(n.rest_translation));
        rest_rotation.push(basis.quat(n.rest_rotation));
    }
    let mut bones: Vec<Bone> = Vec::with_capacity(nodes.len());
    let mut inverse_bind = Vec::with_capacity(nodes.len());
    let mut paths: Vec<String> = Vec::with_capacity(nodes.len());
    let mut taken: BTreeSet<String> = BTreeSet::new();
    let mut mismatched = Vec::new();
    for &ni in &order {
        let n = &nodes[ni];
        let record = format!("node {} \"{}\"", n.index, n.name);
        let (parent, bind_local) = match n.parent {
            Some(p) => {
                let local = match inverse64(&to64(&bind[p])) {
                    Some(inv) => to32(&gom::math::mul_f64(&to64(&bind[ni]), &inv)),
                    None => {
                        report.warn(format!(
                            "{record}: the parent's bind matrix is singular; the bind pose uses the node's rest rotation and translation"
                        ));
                        gom::math::from_trs(rest_translation[ni], rest_rotation[ni], [1.0; 3])
                    }
                };
                (i32::from(node_bone[p]), local)
            }
            None => (-1, bind[ni]),
        };
        // Finite stored matrices can still give a relative one beyond f32 (a huge
        // translation under a parent that scales down): refused, not passed on.
        if bind_local.iter().any(|v| !v.is_finite()) {
            return Err(JpogImportError::Invalid {
                file: file.to_string(),
                record,
                problem: "the bind matrix relative to the parent's (bind × inverse of the parent's bind) holds a value beyond f32".into(),
            });
        }
        let name = if n.name.is_empty() {
            format!("node{}", n.index)
        } else {
            n.name.clone()
        };
        let mut path = match n.parent {
            Some(p) => format!("{}/{}", paths[usize::from(node_bone[p])], name),
            None => name.clone(),
        };
        if taken.contains(&path) {
            let mut k = 2;
            while taken.contains(&format!("{path}#{k}")) {
                k += 1;
            }
            path = format!("{path}#{k}");
        }
        taken.insert(path.clone());
        paths.push(path.clone());
        let ib = check_matrix(
            file,
            &record,
            "inverse bind",
            &flat(&n.inverse_bind),
            report,
        )?;
        let ib = basis.mat4(&ib);
        if !gom::validate::bind_pair_ok(&ib, &bind[ni]) {
            mismatched.push(n.name.clone());
        }
        inverse_bind.push(ib);
        bones.push(Bone {
            name,
            path,
            parent,
            bind_local,
        });
    }
    if !mismatched.is_empty() {
        report.warn(format!(
            "{} node(s) store an inverse bind matrix that does not undo their bind matrix (first: \"{}\"); the stored inverse is kept, so the bind-pose check fails where such a node is used",
            mismatched.len(),
            mismatched[0]
        ));
    }
    Ok(Skeleton {
        bones,
        node_bone,
        bone_node: order,
        inverse_bind,
        rest_translation,
        rest_rotation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(index: usize, parent: Option<usize>) -> SkeletonNode {
        let id = [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ];
        SkeletonNode {
            index,
            name: format!("n{index}"),
            parent,
            bind: id,
            inverse_bind: id,
            rest_rotation: [0.0, 0.0, 0.0, 1.0],
            rest_translation: [0.0; 3],
            flag: 0,
        }
    }

    #[test]
    fn parents_come_first_depth_first_in_file_order() {
        // file order: 0 child of 3, 1 root, 2 child of 0, 3 root, 4 child of 3
        let nodes = vec![
            node(0, Some(3)),
            node(1, None),
            node(2, Some(0)),
            node(3, None),
            node(4, Some(3)),
        ];
        // roots 1, 3 in file order; under 3: 0 (then its child 2), then 4
        assert_eq!(bone_order(&nodes), vec![1, 3, 0, 2, 4]);
    }

    #[test]
    fn duplicate_paths_get_a_suffix() {
        let mut nodes = vec![node(0, None), node(1, Some(0)), node(2, Some(0))];
        nodes[2].name = "n1".into();
        let mut r = Report::default();
        let s = build(
            "t",
            &nodes,
            &super::super::axes::Handedness::Right.basis(),
            &mut r,
        )
        .unwrap();
        let paths: Vec<&str> = s.bones.iter().map(|b| b.path.as_str()).collect();
        assert_eq!(paths, ["n0", "n0/n1", "n0/n1#2"]);
    }
}

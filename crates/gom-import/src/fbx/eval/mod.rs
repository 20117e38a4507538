//! FBX animation evaluated in gom: curves, layers and node transforms.
//!
//! ufbx can evaluate a node's local transform at any time (`ufbx::evaluate_transform`),
//! but it cannot meet two of gom's requirements, so this module ports ufbx 0.11's
//! evaluation to Rust instead of calling it per sample:
//!
//! * **Determinism across platforms (D11).** ufbx turns Euler angles into quaternions
//!   with the C library's `sin` and `cos`, whose last bits differ between platforms.
//!   Here every transcendental function comes from the pure-Rust `libm`.
//! * **Speed.** ufbx looks every transform property up by name and searches every
//!   curve from the start for each call. Here the work that does not depend on the time
//!   (which properties are animated, in which layers, their static values, the
//!   node's adjustment transforms, scale helpers) is done once per node and stack; a
//!   sample only evaluates its curves, each with a forward cursor (amortised O(1) for
//!   ascending times), and composes the transform.
//!
//! The port follows ufbx's `ufbx_evaluate_curve` (constant, linear and cubic Bézier
//! keys; constant, slope, repeat, mirror and relative-repeat extrapolation),
//! `ufbxi_evaluate_props` (layer blending: override, additive, blended, with composed
//! rotation and scale), `ufbx_evaluate_transform_flags` (scale helpers and
//! component-wise inherited scale) and `ufbxi_get_transform` (pivots, offsets, pre- and
//! post-rotation, the adjustments of space and handedness conversion). Nodes it does
//! not cover — a transform property driven by a connection, an animated rotation
//! order, keys out of time order — are evaluated by ufbx (`NodeEval::fallback`).
//! The nodes' stored (unanimated) transforms come from the same code ([`Stored`]), not
//! from ufbx's load, for the same reason.
//!
//! Tests compare both with ufbx on every node of every FBX file in the shared test data
//! and of a generated file that reaches the layer, helper, pivot and extrapolation cases
//! those files do not.

/// A vector `(x, y, z)`.
pub(crate) type V3 = [f64; 3];
/// A quaternion `(x, y, z, w)`.
pub(crate) type Q = [f64; 4];

/// The transform properties `ufbxi_get_transform` reads, and their defaults.
const PROPS: [(&str, V3); 9] = [
    ("ScalingPivot", [0.0; 3]),
    ("RotationPivot", [0.0; 3]),
    ("ScalingOffset", [0.0; 3]),
    ("RotationOffset", [0.0; 3]),
    ("Lcl Translation", [0.0; 3]),
    ("Lcl Rotation", [0.0; 3]),
    ("Lcl Scaling", [1.0; 3]),
    ("PreRotation", [0.0; 3]),
    ("PostRotation", [0.0; 3]),
];
pub(crate) const SCALING_PIVOT: usize = 0;
pub(crate) const ROTATION_PIVOT: usize = 1;
pub(crate) const SCALING_OFFSET: usize = 2;
pub(crate) const ROTATION_OFFSET: usize = 3;
pub(crate) const TRANSLATION: usize = 4;
pub(crate) const ROTATION: usize = 5;
pub(crate) const SCALING: usize = 6;
pub(crate) const PRE_ROTATION: usize = 7;
pub(crate) const POST_ROTATION: usize = 8;

/// A property with a value, found in `props` or the chain of its defaults (ufbx's
/// internal lookup: entries flagged `NO_VALUE` do not count).
fn find_prop<'a>(props: &'a ufbx::Props, name: &str) -> Option<&'a ufbx::Prop> {
    let mut level = Some(props);
    // The defaults chain is short (element, template); the bound keeps a malformed
    // chain from looping.
    for _ in 0..16 {
        let p = level?;
        if let Some(prop) = own_prop(p, name) {
            if !prop.flags.has_any(ufbx::PropFlags::NO_VALUE) {
                return Some(prop);
            }
        }
        level = p.defaults.as_deref();
    }
    None
}

/// A property of `props` itself (not of its defaults). ufbx's lookup (a binary search)
/// looks in `props` first, so a hit inside its own list is the answer.
pub(crate) fn own_prop<'a>(props: &'a ufbx::Props, name: &str) -> Option<&'a ufbx::Prop> {
    let p = ufbx::find_prop(props, name)?;
    let own: &[ufbx::Prop] = &props.props;
    own.as_ptr_range()
        .contains(&(p as *const ufbx::Prop))
        .then_some(p)
}

fn vec3_of(p: &ufbx::Prop) -> V3 {
    [p.value_vec4.x, p.value_vec4.y, p.value_vec4.z]
}

mod curve;
mod layer;
mod rotation;
mod transform;

use layer::PropAnim;
use transform::{get_transform, NodeConsts, Xf};

/// A scale helper's `Lcl Scaling`: static, or animated.
struct HelperScale<'a> {
    value: V3,
    anim: Option<PropAnim<'a>>,
}

impl HelperScale<'_> {
    fn eval(&mut self, time: f64) -> V3 {
        match &mut self.anim {
            Some(a) => a.eval(time),
            None => self.value,
        }
    }
}

/// A key time of a curve (see [`NodeEval::key_times`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyTime {
    /// Seconds on the scene timeline.
    pub time: f64,
    /// The value jumps at this time (the previous key is a constant one, or at the
    /// same time).
    pub step_before: bool,
    /// The value jumps right after this time (this key is a constant-next one).
    pub step_after: bool,
}

/// What places a node independently of the stack: its static property values, its
/// adjustments, which of its properties animation can drive, its scale helpers. Plain
/// data, computed once per node and shared between threads.
#[derive(Clone)]
pub(crate) struct NodeStatic {
    is_root: bool,
    consts: NodeConsts,
    /// Static property values (indexed as [`PROPS`]).
    values: [V3; 9],
    /// Per [`PROPS`] entry: the node's own property is flagged animated or connected.
    may_animate: [bool; 9],
    /// The same for `RotationOrder`.
    order_may_animate: bool,
    /// The parent's scale helper (node typed id) and its static `Lcl Scaling`.
    translation_scale: Option<(u32, V3)>,
    /// Scale helpers along the parent's inherited-scale chain, likewise.
    scale_factor: Vec<(u32, V3)>,
    /// Whether the scale factor also multiplies this node's scale (a scale helper).
    use_scale_factor: bool,
}

/// The index in [`PROPS`] of a transform property's name; [`PROPS`]`.len()` for
/// `RotationOrder`.
fn transform_slot(name: &str) -> Option<usize> {
    Some(match name {
        "ScalingPivot" => SCALING_PIVOT,
        "RotationPivot" => ROTATION_PIVOT,
        "ScalingOffset" => SCALING_OFFSET,
        "RotationOffset" => ROTATION_OFFSET,
        "Lcl Translation" => TRANSLATION,
        "Lcl Rotation" => ROTATION,
        "Lcl Scaling" => SCALING,
        "PreRotation" => PRE_ROTATION,
        "PostRotation" => POST_ROTATION,
        "RotationOrder" => PROPS.len(),
        _ => return None,
    })
}

/// The first entry of each transform property ([`transform_slot`]) in `props`' own
/// list, found in one pass (what `own_prop` finds, name by name).
fn own_transform_props(props: &ufbx::Props) -> [Option<&ufbx::Prop>; PROPS.len() + 1] {
    let mut found = [None; PROPS.len() + 1];
    for p in props.props.iter() {
        if let Some(k) = transform_slot(&p.name) {
            found[k].get_or_insert(p);
        }
    }
    found
}

/// The value of every transform property of `props` ([`find_prop`] for each, in one
/// pass per level of the defaults chain), with the own entries ([`own_transform_props`]).
fn transform_values(props: &ufbx::Props) -> ([V3; 9], [Option<&ufbx::Prop>; PROPS.len() + 1]) {
    let own = own_transform_props(props);
    let mut found: [Option<&ufbx::Prop>; 9] = [None; 9];
    let mut level = Some(props);
    let mut entries = own;
    // The defaults chain is short (element, template); the bound keeps a malformed
    // chain from looping.
    for depth in 0..16 {
        let Some(p) = level else { break };
        if depth > 0 {
            entries = own_transform_props(p);
        }
        for k in 0..9 {
            if found[k].is_none() {
                found[k] = entries[k].filter(|e| !e.flags.has_any(ufbx::PropFlags::NO_VALUE));
            }
        }
        if found.iter().all(Option::is_some) {
            break;
        }
        level = p.defaults.as_deref();
    }
    let mut values = [[0.0; 3]; 9];
    for k in 0..9 {
        values[k] = found[k].map_or(PROPS[k].1, vec3_of);
    }
    (values, own)
}

fn animates(p: Option<&ufbx::Prop>) -> bool {
    p.is_some_and(|p| {
        p.flags
            .has_any(ufbx::PropFlags::ANIMATED | ufbx::PropFlags::CONNECTED)
    })
}

impl NodeStatic {
    /// The stack-independent part of `node` in `scene`.
    pub(crate) fn new(scene: &ufbx::Scene, node: &ufbx::Node) -> NodeStatic {
        let (values, own) = transform_values(&node.element.props);
        let may: [bool; 9] = std::array::from_fn(|k| animates(own[k]));
        let helper = |h: &ufbx::Node, missing: V3| {
            let value = find_prop(&h.element.props, "Lcl Scaling").map_or(missing, vec3_of);
            (h.element.typed_id, value)
        };
        let mut scale_factor = Vec::new();
        let mut use_scale_factor = false;
        let mut translation_scale = None;
        if let Some(parent) = node.parent.as_deref() {
            if let Some(mut p) = parent.inherit_scale_node.as_deref() {
                use_scale_factor = node.is_scale_helper;
                // A missing property reads as zero here, as in ufbx.
                for _ in 0..scene.nodes.count {
                    let Some(h) = p.scale_helper.as_deref() else {
                        break;
                    };
                    scale_factor.push(helper(h, [0.0; 3]));
                    match p.inherit_scale_node.as_deref() {
                        Some(next) => p = next,
                        None => break,
                    }
                }
            }
            if let Some(h) = parent.scale_helper.as_deref() {
                translation_scale = Some(helper(h, [1.0; 3]));
            }
        }
        NodeStatic {
            is_root: node.is_root,
            consts: NodeConsts::of(node),
            values,
            may_animate: may,
            order_may_animate: animates(own[PROPS.len()]),
            translation_scale,
            scale_factor,
            use_scale_factor,
        }
    }
}

impl NodeStatic {
    /// The node's local transform without animation (what ufbx's load stores as
    /// `local_transform`), evaluated here so that no platform `sin`/`cos` reaches it.
    fn local(&self) -> Xf {
        let mut factor = [1.0; 3];
        for (_, s) in &self.scale_factor {
            for k in 0..3 {
                factor[k] *= s[k];
            }
        }
        let translation_scale = self
            .translation_scale
            .map(|(_, s)| [0, 1, 2].map(|k| s[k] * factor[k]));
        let mut t = get_transform(&self.values, &self.consts, translation_scale);
        if self.use_scale_factor {
            for (s, f) in t.s.iter_mut().zip(factor) {
                *s *= f;
            }
        }
        t
    }
}

/// The stored (unanimated) placement of every node, from gom's evaluation: local
/// transforms and model-space matrices (`local * parent`, D1 row vectors).
pub(crate) struct Stored {
    /// Per node typed id: the local transform.
    pub local: Vec<ufbx::Transform>,
    /// Per node typed id: the node-to-model matrix.
    pub world: Vec<super::mat::M64>,
}

impl Stored {
    /// The stored placement of every node of `scene`, from their static parts.
    pub(crate) fn new(scene: &ufbx::Scene, statics: &[NodeStatic]) -> Stored {
        let n = scene.nodes.count;
        let mut local = Vec::with_capacity(n);
        for (node, st) in scene.nodes.iter().zip(statics) {
            local.push(if node.is_root {
                node.local_transform
            } else {
                st.local().to_ufbx()
            });
        }
        let mut world = vec![super::mat::ID; n];
        let mut done = vec![false; n];
        // Parents first: walk each node's chain up to a placed ancestor (bounded by the
        // node count, so a malformed hierarchy cannot loop).
        for i in 0..n {
            let mut chain = Vec::new();
            let mut cur = Some(&scene.nodes[i]);
            while let Some(c) = cur {
                let id = c.element.typed_id as usize;
                if id >= n || done[id] || chain.len() > n {
                    break;
                }
                chain.push(id);
                cur = c.parent.as_deref();
            }
            for &id in chain.iter().rev() {
                let node = &scene.nodes[id];
                let m = super::mat::from_transform(&local[id]);
                world[id] = match node.parent.as_deref() {
                    Some(p)
                        if (p.element.typed_id as usize) < n
                            && done[p.element.typed_id as usize] =>
                    {
                        super::mat::mul(&m, &world[p.element.typed_id as usize])
                    }
                    _ if node.is_root => super::mat::from_ufbx(&node.node_to_world),
                    _ => m,
                };
                done[id] = true;
            }
        }
        Stored { local, world }
    }
}

/// A node's local transform over one stack, ready to sample.
pub(crate) struct NodeEval<'a> {
    anim: &'a ufbx::Anim,
    node: &'a ufbx::Node,
    /// ufbx evaluates this node (see the module documentation).
    fallback: bool,
    consts: NodeConsts,
    /// Static property values (indexed as [`PROPS`]).
    values: [V3; 9],
    animated: Vec<(usize, PropAnim<'a>)>,
    /// The parent's scale helper scales this node's translation.
    translation_scale: Option<HelperScale<'a>>,
    /// Scale helpers along the parent's inherited-scale chain (component-wise scale).
    scale_factor: Vec<HelperScale<'a>>,
    /// Whether the scale factor also multiplies this node's scale (a scale helper).
    use_scale_factor: bool,
    /// The transform is [`transform::plain_transform`] of the values (no helper
    /// scales, pivots, offsets or rotation space).
    plain: bool,
}

impl<'a> NodeEval<'a> {
    /// Prepares `node` (whose stack-independent part is `st`) for sampling `anim`.
    /// `None` when nothing that places the node is animated (its local transform is
    /// its stored one at every time).
    pub(crate) fn new(
        scene: &'a ufbx::Scene,
        anim: &'a ufbx::Anim,
        node: &'a ufbx::Node,
        st: &NodeStatic,
    ) -> Option<NodeEval<'a>> {
        if st.is_root {
            return None;
        }
        let ktime = scene.metadata.ktime_second as f64;
        let consts = st.consts;
        let mut fallback = anim.prop_overrides.count > 0;
        let mut animated = Vec::new();
        let mut values = st.values;
        let mut constant_props = false;
        for (slot, (name, _)) in PROPS.iter().enumerate() {
            if !st.may_animate[slot] {
                continue;
            }
            match PropAnim::new(
                anim,
                &node.element,
                name,
                st.values[slot],
                consts.order,
                ktime,
            ) {
                // Curves that hold one value: evaluated once, it is static for this
                // stack.
                Ok(Some(mut p)) if p.is_constant() && p.is_well_formed() => {
                    values[slot] = p.eval(0.0);
                    constant_props = true;
                }
                Ok(Some(p)) => animated.push((slot, p)),
                Ok(None) => {}
                Err(()) => fallback = true,
            }
        }
        if st.order_may_animate {
            match PropAnim::new(
                anim,
                &node.element,
                "RotationOrder",
                [0.0; 3],
                consts.order,
                ktime,
            ) {
                Ok(None) => {}
                _ => fallback = true,
            }
        }
        let mut helper = |&(id, value): &(u32, V3)| -> HelperScale<'a> {
            let h = &scene.nodes[id as usize];
            let anim = match PropAnim::new(
                anim,
                &h.element,
                "Lcl Scaling",
                value,
                h.rotation_order,
                ktime,
            ) {
                Ok(a) => a,
                Err(()) => {
                    fallback = true;
                    None
                }
            };
            HelperScale { value, anim }
        };
        let scale_factor: Vec<HelperScale<'a>> = st.scale_factor.iter().map(&mut helper).collect();
        let translation_scale = st.translation_scale.as_ref().map(&mut helper);
        let plain = translation_scale.is_none()
            && scale_factor.is_empty()
            && !st.use_scale_factor
            && consts.is_plain(&values)
            && animated
                .iter()
                .all(|(slot, _)| matches!(*slot, TRANSLATION | ROTATION | SCALING));
        let e = NodeEval {
            anim,
            node,
            fallback,
            consts,
            values,
            animated,
            translation_scale,
            scale_factor,
            use_scale_factor: st.use_scale_factor,
            plain,
        };
        let fallback = e.fallback || !e.props().all(PropAnim::is_well_formed);
        let moves = fallback || constant_props || e.props().next().is_some();
        moves.then_some(NodeEval { fallback, ..e })
    }

    fn props(&self) -> impl Iterator<Item = &PropAnim<'a>> {
        self.animated
            .iter()
            .map(|(_, p)| p)
            .chain(
                self.translation_scale
                    .iter()
                    .filter_map(|h| h.anim.as_ref()),
            )
            .chain(self.scale_factor.iter().filter_map(|h| h.anim.as_ref()))
    }

    /// Whether the transform is the same at every time (every curve holds one value).
    pub(crate) fn is_constant(&self) -> bool {
        !self.fallback && self.props().all(PropAnim::is_constant)
    }

    /// Whether ufbx evaluates this node.
    #[cfg(test)]
    pub(crate) fn is_fallback(&self) -> bool {
        self.fallback
    }

    /// Every key time of the curves that place this node (seconds on the scene
    /// timeline), each with whether the value steps just before it (the previous key
    /// holds its value up to it, or has the same time) and just after it (the key hands
    /// over to the next key's value at once).
    pub(crate) fn key_times(&self, out: &mut Vec<KeyTime>) {
        let mut previous: &[ufbx::Keyframe] = &[];
        for c in self.props().flat_map(PropAnim::curves) {
            let keys = c.keys;
            // The curves of one property usually share their key times: list them once.
            let same_times = keys.len() == previous.len()
                && keys
                    .iter()
                    .zip(previous)
                    .all(|(a, b)| a.time == b.time && a.interpolation == b.interpolation);
            previous = keys;
            if same_times {
                continue;
            }
            c.key_times(out);
        }
    }

    /// Appends the spans of the timeline (open intervals, seconds) in which this node's
    /// transform may change ([`curve::Curve::varying_spans`] of every curve that places it);
    /// all of it for a node ufbx evaluates.
    pub(crate) fn varying_spans(&self, out: &mut Vec<(f64, f64)>) {
        if self.fallback {
            out.push((f64::NEG_INFINITY, f64::INFINITY));
            return;
        }
        for c in self.props().flat_map(PropAnim::curves) {
            c.varying_spans(out);
        }
    }

    /// The local transform at `time` (seconds on the scene timeline). Evaluating at
    /// ascending times is fastest.
    pub(crate) fn eval(&mut self, time: f64) -> ufbx::Transform {
        if self.fallback {
            return ufbx::evaluate_transform(self.anim, self.node, time);
        }
        let mut p = self.values;
        for (slot, a) in &mut self.animated {
            p[*slot] = a.eval(time);
        }
        if self.plain {
            return transform::plain_transform(&p, &self.consts).to_ufbx();
        }
        let mut factor = [1.0; 3];
        for h in &mut self.scale_factor {
            let s = h.eval(time);
            for k in 0..3 {
                factor[k] *= s[k];
            }
        }
        let translation_scale = self.translation_scale.as_mut().map(|h| {
            let s = h.eval(time);
            [0, 1, 2].map(|k| s[k] * factor[k])
        });
        let mut t = get_transform(&p, &self.consts, translation_scale);
        if self.use_scale_factor {
            for (s, f) in t.s.iter_mut().zip(factor) {
                *s *= f;
            }
        }
        t.to_ufbx()
    }
}

#[cfg(test)]
pub(crate) mod tests;

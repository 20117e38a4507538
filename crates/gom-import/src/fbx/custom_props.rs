//! Animated custom properties of nodes (user-defined `Properties70` entries, flag
//! `U`, with curves in a stack) into float tracks of the stack's clip
//! (`docs/extensions.md` §6.5): evaluated by ufbx with the stack's layers
//! (`ufbx_evaluate_prop`) at the clip rate and at the curves' own keys.
//!
//! A number, integer or distance is one component, a vector or colour three, a colour
//! with alpha four; booleans and integers are step tracks, the rest linear. A track is
//! named after its property, or `NODE/PROPERTY` when nodes animate properties of the
//! same name in one stack. FBX timeline markers are not read: ufbx does not expose
//! them (its `ufbx_marker` is an FK/IK effector node), so FBX events come from
//! `gom.toml` or `--event`.

use gom::events::{FloatTrack, Interpolation};
use gom::Model;

use super::times::{sample_times, with_prop_keys};
use super::FbxOptions;
use crate::report::Report;

/// One animated custom property of a node.
struct Animated<'a> {
    node: &'a ufbx::Element,
    prop: String,
    components: u32,
    interpolation: Interpolation,
}

/// Gives every clip the float tracks of its stack's animated custom properties, and
/// writes a clip holding only those for a stack that moves nothing else.
pub(crate) fn add_float_tracks(
    scene: &ufbx::Scene,
    options: &FbxOptions,
    model: &mut Model,
    report: &mut Report,
) {
    for stack in scene.anim_stacks.iter() {
        let found = animated_props(stack);
        if found.is_empty() {
            continue;
        }
        let name: &str = &stack.element.name;
        let duration = super::shape_anim::duration(stack);
        let kept = stack_tracks(stack, &found, duration, options);
        if kept.is_empty() {
            continue;
        }
        let tracks: Vec<FloatTrack> = kept.iter().map(|(_, t)| t.clone()).collect();
        if let Err((field, problem)) = gom::events::check(&tracks, &[], duration as f32) {
            report.warnings.push(format!(
                "animation stack \"{name}\": custom properties not kept as float tracks: \
                 {field}: {problem}"
            ));
            continue;
        }
        for (a, _) in &kept {
            let note = super::anim::not_converted(stack, &a.prop, &a.node.name);
            report.warnings.retain(|w| *w != note);
        }
        let clip = super::shape_anim::clip_for_stack(stack, options, model, report);
        clip.extras.float_tracks = tracks;
    }
}

/// The custom properties of nodes that `stack` animates, in the order of its layers'
/// animated properties, each once.
fn animated_props(stack: &ufbx::AnimStack) -> Vec<Animated<'_>> {
    let mut out: Vec<Animated<'_>> = Vec::new();
    for layer in stack.anim.layers.iter() {
        for p in layer.anim_props.iter() {
            let node: &ufbx::Element = &p.element;
            let name: &str = &p.prop_name;
            let Some((components, interpolation)) = float_shape(node, name) else {
                continue;
            };
            let seen = out
                .iter()
                .any(|a| a.node.element_id == node.element_id && a.prop == name);
            if !seen {
                out.push(Animated {
                    node,
                    prop: name.to_string(),
                    components,
                    interpolation,
                });
            }
        }
    }
    out
}

/// Components and interpolation of the float track property `name` of `element`
/// becomes, when it is a custom property of a node whose type a float track can hold.
fn float_shape(element: &ufbx::Element, name: &str) -> Option<(u32, Interpolation)> {
    if element.type_ != ufbx::ElementType::Node {
        return None;
    }
    let prop = ufbx::find_prop(&element.props, name)?;
    if !prop.flags.has_any(ufbx::PropFlags::USER_DEFINED) {
        return None;
    }
    shape_of(prop.type_)
}

/// Components and interpolation of a property type a float track can hold.
fn shape_of(t: ufbx::PropType) -> Option<(u32, Interpolation)> {
    use ufbx::PropType as P;
    match t {
        P::Boolean | P::Integer => Some((1, Interpolation::Step)),
        P::Number | P::Distance => Some((1, Interpolation::Linear)),
        P::Vector | P::Color | P::Translation | P::Rotation | P::Scaling => {
            Some((3, Interpolation::Linear))
        }
        P::ColorWithAlpha => Some((4, Interpolation::Linear)),
        _ => None,
    }
}

/// One float track per animated property whose value the stack changes from the
/// stored one, with the property it comes from, named as the module says.
fn stack_tracks<'a>(
    stack: &ufbx::AnimStack,
    found: &'a [Animated<'a>],
    duration: f64,
    options: &FbxOptions,
) -> Vec<(&'a Animated<'a>, FloatTrack)> {
    let max = gom::limits::MAX_KEYS_PER_CLIP as usize;
    let grid = sample_times(duration, f64::from(options.sample_rate), max);
    let mut kept: Vec<(&Animated<'_>, FloatTrack)> = found
        .iter()
        .filter_map(|a| {
            let times = with_prop_keys(&grid, stack, a.node.element_id, &a.prop, duration);
            track(stack, a, &times).map(|t| (a, t))
        })
        .collect();
    let props: Vec<String> = kept.iter().map(|(a, _)| a.prop.clone()).collect();
    for (a, t) in &mut kept {
        if props.iter().filter(|p| **p == a.prop).count() > 1 {
            t.name = format!("{}/{}", a.node.name, a.prop);
        }
    }
    kept
}

/// The property's values at `times` (seconds from the stack's start), without the
/// keys that change nothing: in a step track a key repeating the one before, in a
/// linear track a key both neighbours repeat. `None` when every value is the stored
/// one (Maya keys its own custom attributes, such as `lockInfluenceWeights`, so).
fn track(stack: &ufbx::AnimStack, a: &Animated<'_>, times: &[f64]) -> Option<FloatTrack> {
    let n = a.components as usize;
    let values = |v: ufbx::Vec4| [v.x, v.y, v.z, v.w].map(|x| x as f32)[..n].to_vec();
    let rows: Vec<(f32, Vec<f32>)> = times
        .iter()
        .map(|&t| {
            let p = ufbx::evaluate_prop(&stack.anim, a.node, &a.prop, stack.time_begin + t);
            (t as f32, values(p.value_vec4))
        })
        .collect();
    let stored = ufbx::find_prop(&a.node.props, &a.prop).map(|p| values(p.value_vec4));
    if rows.iter().all(|r| Some(&r.1) == stored.as_ref()) {
        return None;
    }
    let mut out = FloatTrack {
        name: a.prop.clone(),
        components: a.components,
        interpolation: a.interpolation,
        times: Vec::new(),
        values: Vec::new(),
    };
    let step = a.interpolation == Interpolation::Step;
    for (k, (t, v)) in rows.iter().enumerate() {
        let repeats = k > 0 && rows[k - 1].1 == *v;
        let held = k + 1 < rows.len() && rows[k + 1].1 == *v;
        if repeats && (step || held) {
            continue;
        }
        if out.times.last().is_some_and(|last| *last >= *t) {
            continue;
        }
        out.times.push(*t);
        out.values.extend_from_slice(v);
    }
    Some(out)
}

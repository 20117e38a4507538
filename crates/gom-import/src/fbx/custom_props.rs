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
        let tracks = stack_tracks(stack, &found, duration, options);
        if let Err((field, problem)) = gom::events::check(&tracks, &[], duration as f32) {
            report.warnings.push(format!(
                "animation stack \"{name}\": custom properties not kept as float tracks: \
                 {field}: {problem}"
            ));
            continue;
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
            if node.type_ != ufbx::ElementType::Node {
                continue;
            }
            let name: &str = &p.prop_name;
            let Some(prop) = ufbx::find_prop(&node.props, name) else {
                continue;
            };
            if !prop.flags.has_any(ufbx::PropFlags::USER_DEFINED) {
                continue;
            }
            let Some((components, interpolation)) = shape_of(prop.type_) else {
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

/// One float track per animated property, named as the module says.
fn stack_tracks(
    stack: &ufbx::AnimStack,
    found: &[Animated<'_>],
    duration: f64,
    options: &FbxOptions,
) -> Vec<FloatTrack> {
    let max = gom::limits::MAX_KEYS_PER_CLIP as usize;
    let grid = sample_times(duration, f64::from(options.sample_rate), max);
    found
        .iter()
        .map(|a| {
            let shared = found.iter().filter(|b| b.prop == a.prop).count() > 1;
            let name = if shared {
                format!("{}/{}", a.node.name, a.prop)
            } else {
                a.prop.clone()
            };
            let times = with_prop_keys(&grid, stack, a.node.element_id, &a.prop, duration);
            track(stack, a, name, &times)
        })
        .collect()
}

/// The property's values at `times` (seconds from the stack's start), without the
/// keys that change nothing: in a step track a key repeating the one before, in a
/// linear track a key both neighbours repeat.
fn track(stack: &ufbx::AnimStack, a: &Animated<'_>, name: String, times: &[f64]) -> FloatTrack {
    let n = a.components as usize;
    let rows: Vec<(f32, Vec<f32>)> = times
        .iter()
        .map(|&t| {
            let p = ufbx::evaluate_prop(&stack.anim, a.node, &a.prop, stack.time_begin + t);
            let v = p.value_vec4;
            let all = [v.x, v.y, v.z, v.w].map(|x| x as f32);
            (t as f32, all[..n].to_vec())
        })
        .collect();
    let mut out = FloatTrack {
        name,
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
    out
}

//! Every file in the shared synthetic set parses to exactly its `.expected.json`.

use jpog::scene::decode_strip;
use jpog::texture::{CodecOptions, Order4444, Order8888};
use jpog::tmd::NodeLayout;
use jpog::{Tmd, Tml};
use serde_json::Value;
use std::path::PathBuf;

fn data_dir() -> Option<PathBuf> {
    gom_test_support::shared_data("jpog")
}

fn u(v: &Value, k: &str) -> u64 {
    v[k].as_u64()
        .unwrap_or_else(|| panic!("expected an integer at {k}: {v}"))
}

fn i(v: &Value, k: &str) -> i64 {
    v[k].as_i64()
        .unwrap_or_else(|| panic!("expected an integer at {k}"))
}

/// Floats: the JSON number is the stored f32 widened to f64. serde_json's default number
/// parser (no `float_roundtrip` feature) may land one f64 ulp off the correctly rounded
/// value, so: the parsed f64 must round to exactly the stored f32 and lie within a few f64
/// ulps of its widening.
fn float_eq(e: &Value, g: f32, what: &str) {
    let e = e.as_f64().unwrap_or_else(|| panic!("{what}: not a number"));
    let g64 = f64::from(g);
    assert_eq!((e as f32).to_bits(), g.to_bits(), "{what}: {e} vs {g}");
    assert!(
        (e - g64).abs() <= g64.abs() * 4.0 * f64::EPSILON,
        "{what}: {e} vs {g64}"
    );
}

fn floats(v: &Value, got: &[f32], what: &str) {
    let arr = v
        .as_array()
        .unwrap_or_else(|| panic!("{what}: not an array"));
    assert_eq!(arr.len(), got.len(), "{what}: length");
    for (k, (e, g)) in arr.iter().zip(got).enumerate() {
        float_eq(e, *g, &format!("{what}[{k}]"));
    }
}

fn ints(v: &Value, got: &[u64], what: &str) {
    let e: Vec<u64> = v
        .as_array()
        .unwrap_or_else(|| panic!("{what}: not an array"))
        .iter()
        .map(|x| x.as_u64().unwrap_or_else(|| panic!("{what}: not integers")))
        .collect();
    assert_eq!(e, got, "{what}");
}

fn cases(kind: &str) -> Vec<(PathBuf, Value, Vec<u8>)> {
    let Some(dir) = data_dir() else {
        return Vec::new();
    };
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let mut out = Vec::new();
    for c in manifest["cases"].as_array().unwrap() {
        if c["kind"] != kind {
            continue;
        }
        let exp: Value = serde_json::from_slice(
            &std::fs::read(dir.join(c["expected"].as_str().unwrap())).unwrap(),
        )
        .unwrap();
        let file = dir.join(c["files"][0].as_str().unwrap());
        let bytes = std::fs::read(&file).unwrap();
        out.push((file, exp, bytes));
    }
    out
}

#[test]
fn tml_files_match_expected_json() {
    for (file, exp, bytes) in cases("tml") {
        let name = file.display().to_string();
        assert_eq!(bytes.len() as u64, u(&exp, "file_size"), "{name}");
        let tml = Tml::read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let h = &exp["header"];
        assert_eq!(h["magic"], "TML1");
        assert_eq!(u64::from(tml.type_field), u(h, "type"));
        assert_eq!(tml.textures.len() as u64, u(h, "texture_count"));
        assert_eq!(tml.materials.len() as u64, u(h, "material_count"));
        let mut off = 12usize;
        let alt = CodecOptions {
            order_8888: Order8888::Argb,
            order_4444: Order4444::BLow,
        };
        let etex = exp["textures"].as_array().unwrap();
        assert_eq!(etex.len(), tml.textures.len());
        for (k, (t, e)) in tml.textures.iter().zip(etex).enumerate() {
            let th = &t.header;
            let w = format!("{name} texture {k}");
            assert_eq!(u(e, "index"), k as u64, "{w}");
            assert_eq!(u(e, "header_offset"), off as u64, "{w} header_offset");
            assert_eq!(u(e, "data_offset"), (off + 28) as u64, "{w} data_offset");
            assert_eq!(u(e, "id"), u64::from(th.id), "{w} id");
            assert_eq!(u(e, "data_size"), t.data.len() as u64, "{w}");
            assert_eq!(u(e, "flags"), u64::from(th.flags), "{w}");
            assert_eq!(i(e, "unknown"), i64::from(th.unknown), "{w}");
            assert_eq!(u(e, "unknown2"), u64::from(th.unknown2), "{w}");
            assert_eq!(u(e, "format"), u64::from(th.format), "{w}");
            assert_eq!(u(e, "width"), u64::from(th.width), "{w}");
            assert_eq!(u(e, "height"), u64::from(th.height), "{w}");
            assert_eq!(u(e, "unknown3"), u64::from(th.unknown3), "{w}");
            assert_eq!(u(e, "unknown4"), u64::from(th.unknown4), "{w}");
            let img = tml
                .decode_texture(k, CodecOptions::default())
                .unwrap_or_else(|e| panic!("{w}: {e}"));
            assert_eq!(
                e["rgba_hex"].as_str().unwrap(),
                hex::encode(img.data()),
                "{w} rgba"
            );
            if let Some(a) = e.get("rgba_hex_alt") {
                let img = tml.decode_texture(k, alt).unwrap();
                assert_eq!(
                    a["rgba_hex"].as_str().unwrap(),
                    hex::encode(img.data()),
                    "{w} rgba alt ({})",
                    a["reading"]
                );
            }
            if let Some(d) = e.get("dds") {
                let dds = jpog::dds::Dds::parse(&t.data, "t").unwrap();
                let fourcc = match dds.dxt {
                    jpog::Dxt::Dxt3 => "DXT3",
                    jpog::Dxt::Dxt5 => "DXT5",
                };
                assert_eq!(d["fourcc"], fourcc, "{w}");
                assert_eq!(u(d, "header_flags"), u64::from(dds.flags), "{w}");
                assert_eq!(u(d, "caps"), u64::from(dds.caps), "{w}");
                assert_eq!(
                    u(d, "mip_map_count_field"),
                    u64::from(dds.mip_map_count_field),
                    "{w}"
                );
                assert_eq!(
                    u(d, "pitch_or_linear_size"),
                    u64::from(dds.pitch_or_linear_size),
                    "{w}"
                );
                assert_eq!(u(d, "header_size"), jpog::dds::HEADER_SIZE as u64, "{w}");
                let levels = d["levels"].as_array().unwrap();
                assert_eq!(levels.len(), dds.levels.len(), "{w} levels");
                for (li, (el, gl)) in levels.iter().zip(&dds.levels).enumerate() {
                    assert_eq!(u(el, "width"), u64::from(gl.width), "{w} level {li}");
                    assert_eq!(u(el, "height"), u64::from(gl.height), "{w} level {li}");
                    assert_eq!(u(el, "data_size"), gl.size as u64, "{w} level {li}");
                    let img = dds.decode_level(li, &t.data, "t").unwrap();
                    assert_eq!(
                        el["rgba_hex"].as_str().unwrap(),
                        hex::encode(img.data()),
                        "{w} level {li} rgba"
                    );
                }
            }
            off += 28 + t.data.len();
        }
        assert_eq!(
            u(h, "material_table_offset"),
            off as u64,
            "{name} material table"
        );
        let emat = exp["materials"].as_array().unwrap();
        assert_eq!(emat.len(), tml.materials.len());
        for (k, (m, e)) in tml.materials.iter().zip(emat).enumerate() {
            let w = format!("{name} material {k}");
            assert_eq!(u(e, "index"), k as u64);
            assert_eq!(e["name"].as_str().unwrap(), m.name(), "{w}");
            assert_eq!(
                e["name_field_hex"].as_str().unwrap(),
                hex::encode(m.name_field),
                "{w}"
            );
            assert_eq!(u(e, "name_index"), u64::from(m.name_index), "{w}");
            assert_eq!(u(e, "flags"), u64::from(m.flags), "{w}");
            assert_eq!(u(e, "shader"), u64::from(m.shader()), "{w}");
            let ids: Vec<u64> = m.texture_ids.iter().map(|&x| u64::from(x)).collect();
            ints(&e["texture_ids"], &ids, &format!("{w} texture_ids"));
        }
        // the file follows the game's rules, and an unmodified write is byte-identical
        tml.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(tml.write().unwrap(), bytes, "{name}: byte-identical write");
    }
}

#[test]
fn tmd_files_match_expected_json() {
    for (file, exp, bytes) in cases("tmd") {
        let name = file.display().to_string();
        assert_eq!(bytes.len() as u64, u(&exp, "file_size"), "{name}");
        let tmd = Tmd::read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let lay = tmd.layout.as_ref().unwrap();
        let h = &exp["header"];
        assert_eq!(h["magic"], "TMDL");
        assert_eq!(u(h, "zero"), u64::from(tmd.header.zero));
        assert_eq!(u(h, "remaining"), bytes.len() as u64 - 12);
        assert_eq!(h["tkl_name"].as_str().unwrap(), tmd.header.tkl_name());
        assert_eq!(
            h["tkl_name_field_hex"].as_str().unwrap(),
            hex::encode(tmd.header.tkl_name)
        );
        assert_eq!(
            u(h, "scene_block_size"),
            (lay.mesh_block_offset - 0x3C) as u64
        );
        assert_eq!(
            u(h, "scene_block_size_copy"),
            (lay.mesh_block_offset - 0x3C) as u64
        );
        assert_eq!(u(h, "raw_base"), u64::from(tmd.header.raw_base));
        assert_eq!(u(h, "u1"), u64::from(tmd.header.u1));
        assert_eq!(u(h, "u2"), u64::from(tmd.header.u2));
        let z: Vec<u64> = tmd.header.zeros_2c.iter().map(|&x| u64::from(x)).collect();
        ints(&h["zeros_0x2c"], &z, "zeros_0x2c");
        assert_eq!(u(h, "node_count"), tmd.nodes.len() as u64);
        assert_eq!(u(h, "u3"), u64::from(tmd.header.u3));
        assert_eq!(u(h, "animation_count"), tmd.animations.len() as u64);
        assert_eq!(u(h, "u4"), u64::from(tmd.header.u4));
        // the generator numbers the common variant (ptrA -> nodes at 0x7C) 2 and the
        // node-order variant 3: the count of header pointers from 0x74
        let variant = match tmd.node_layout {
            NodeLayout::Direct => 2,
            NodeLayout::Indexed { .. } => 3,
        };
        assert_eq!(u(h, "pointer_variant"), variant, "{name} pointer variant");
        assert_eq!(u(h, "header_size"), lay.header_size as u64);
        assert_eq!(u(h, "ptr_a_raw"), u64::from(lay.ptr_a_raw));
        assert_eq!(u(h, "node_array_raw"), u64::from(lay.node_array_raw));
        assert_eq!(u(h, "anim_table_raw"), u64::from(lay.anim_table_raw));
        assert_eq!(
            h["node_order_offset"].as_u64(),
            lay.node_order_offset.map(|x| x as u64)
        );
        assert_eq!(u(h, "node_array_offset"), lay.node_array_offset as u64);
        assert_eq!(
            h["anim_table_offset"].as_u64(),
            lay.anim_table_offset.map(|x| x as u64)
        );
        assert_eq!(u(h, "mesh_block_offset"), lay.mesh_block_offset as u64);
        match (&tmd.node_layout, &exp["node_order"]) {
            (NodeLayout::Direct, Value::Null) => {}
            (NodeLayout::Indexed { node_order }, Value::Array(a)) => {
                let e: Vec<i64> = a.iter().map(|x| x.as_i64().unwrap()).collect();
                let g: Vec<i64> = node_order.iter().map(|&x| i64::from(x)).collect();
                assert_eq!(e, g, "{name} node order");
            }
            (l, e) => panic!("{name}: node layout {l:?} vs expected node_order {e}"),
        }
        let skel = tmd.skeleton().unwrap();
        let en = exp["nodes"].as_array().unwrap();
        assert_eq!(en.len(), tmd.nodes.len());
        for (k, (n, e)) in tmd.nodes.iter().zip(en).enumerate() {
            let w = format!("{name} node {k}");
            assert_eq!(u(e, "index"), k as u64);
            assert_eq!(e["name"].as_str().unwrap(), n.name(), "{w}");
            assert_eq!(u(e, "name_length"), u64::from(n.name_length), "{w}");
            assert_eq!(i(e, "parent"), i64::from(n.parent), "{w}");
            assert_eq!(u(e, "flag"), u64::from(n.flag), "{w}");
            floats(
                &e["rest_rotation"],
                &n.rest_rotation,
                &format!("{w} rest_rotation"),
            );
            floats(&e["pivot"], &n.rest_translation, &format!("{w} pivot"));
            for r in 0..4 {
                floats(
                    &e["bind"][r],
                    &skel[k].bind[r],
                    &format!("{w} bind row {r}"),
                );
                floats(
                    &e["inverse_bind"][r],
                    &skel[k].inverse_bind[r],
                    &format!("{w} inverse row {r}"),
                );
            }
        }
        let lb = &exp["lod_block"];
        assert_eq!(u(lb, "offset"), lay.mesh_block_offset as u64);
        assert_eq!(u(lb, "lod_count"), tmd.mesh.lods.len() as u64);
        float_eq(&lb["lod_distance"], tmd.mesh.lod_distance, "lod_distance");
        let el = exp["lods"].as_array().unwrap();
        assert_eq!(el.len(), tmd.mesh.lods.len());
        for (li, (lod, e)) in tmd.mesh.lods.iter().zip(el).enumerate() {
            let w = format!("{name} lod {li}");
            assert_eq!(u(e, "mesh_count"), lod.meshes.len() as u64, "{w}");
            assert_eq!(u(e, "shader"), u64::from(lod.shader_type), "{w}");
            floats(&e["sphere"], &lod.sphere, &format!("{w} sphere"));
            let geo = tmd.lod_geometry(li).unwrap();
            for (mi, ((mesh, g), em)) in lod
                .meshes
                .iter()
                .zip(&geo)
                .zip(e["meshes"].as_array().unwrap())
                .enumerate()
            {
                let w = format!("{w} mesh {mi}");
                assert_eq!(em["material"].as_str().unwrap(), mesh.material(), "{w}");
                assert_eq!(u(em, "piece_count"), mesh.pieces.len() as u64, "{w}");
                assert_eq!(
                    u(em, "total_strip_indices"),
                    mesh.pieces
                        .iter()
                        .map(|p| p.strip.len() as u64)
                        .sum::<u64>(),
                    "{w}"
                );
                assert_eq!(u(em, "total_vertices"), mesh.vertex_count() as u64, "{w}");
                let ep = em["pieces"].as_array().unwrap();
                assert_eq!(ep.len(), mesh.pieces.len(), "{w}");
                for (pi, (p, e)) in mesh.pieces.iter().zip(ep).enumerate() {
                    let w = format!("{w} piece {pi}");
                    assert_eq!(u(e, "strip_count"), p.strip.len() as u64, "{w}");
                    assert_eq!(u(e, "vertex_count"), p.vertices.len() as u64, "{w}");
                    assert_eq!(u(e, "palette_count"), p.palette.len() as u64, "{w}");
                    assert_eq!(u(e, "verts_required"), u64::from(p.verts_required), "{w}");
                    floats(
                        &e["bbox_center"],
                        &p.box_center,
                        &format!("{w} bbox_center"),
                    );
                    floats(
                        &e["bbox_extents"],
                        &p.box_extents,
                        &format!("{w} bbox_extents"),
                    );
                    let pal: Vec<u64> = p.palette.iter().map(|&x| u64::from(x)).collect();
                    ints(&e["palette"], &pal, &format!("{w} palette"));
                    let st: Vec<u64> = p.strip.iter().map(|&x| u64::from(x)).collect();
                    ints(&e["strip"], &st, &format!("{w} strip"));
                    let tris: Vec<Vec<u64>> = decode_strip(&p.strip)
                        .triangles
                        .iter()
                        .map(|t| t.iter().map(|&x| u64::from(x)).collect())
                        .collect();
                    let et: Vec<Vec<u64>> = serde_json::from_value(e["triangles"].clone()).unwrap();
                    assert_eq!(et, tris, "{w} triangles");
                }
                let et: Vec<Vec<u64>> = serde_json::from_value(em["triangles"].clone()).unwrap();
                let gt: Vec<Vec<u64>> = g
                    .triangles
                    .iter()
                    .map(|t| t.iter().map(|&x| u64::from(x)).collect())
                    .collect();
                assert_eq!(et, gt, "{w} mesh triangles");
                let ev = em["vertices"].as_array().unwrap();
                assert_eq!(ev.len(), g.vertices.len(), "{w} vertices");
                for (vi, (v, e)) in g.vertices.iter().zip(ev).enumerate() {
                    let w = format!("{w} vertex {vi}");
                    assert_eq!(u(e, "index"), vi as u64);
                    floats(&e["position"], &v.position, &format!("{w} position"));
                    floats(&e["normal"], &v.normal, &format!("{w} normal"));
                    ints(
                        &e["weights_u8"],
                        &v.weights_u8.map(u64::from),
                        &format!("{w} weights_u8"),
                    );
                    ints(
                        &e["bones_u8"],
                        &v.bones_u8.map(u64::from),
                        &format!("{w} bones_u8"),
                    );
                    for (k, ew) in e["weights"].as_array().unwrap().iter().enumerate() {
                        assert!(
                            (ew.as_f64().unwrap() - f64::from(v.weights[k])).abs() < 1e-6,
                            "{w} weight {k}"
                        );
                    }
                    ints(
                        &e["palette_slots"],
                        &v.palette_slots.map(u64::from),
                        &format!("{w} palette_slots"),
                    );
                    assert_eq!(e["piece"].as_u64(), v.piece.map(|p| p as u64), "{w} piece");
                    let en: Vec<Option<u64>> = serde_json::from_value(e["nodes"].clone()).unwrap();
                    assert_eq!(en, v.nodes.map(|n| n.map(u64::from)).to_vec(), "{w} nodes");
                    let inf = e["influences"].as_array().unwrap();
                    let gi = v.influences();
                    assert_eq!(inf.len(), gi.len(), "{w} influences");
                    for (a, b) in inf.iter().zip(&gi) {
                        assert_eq!(a[0].as_u64(), Some(u64::from(b.0)), "{w} influence node");
                        assert!(
                            (a[1].as_f64().unwrap() - f64::from(b.1)).abs() < 1e-6,
                            "{w} influence weight"
                        );
                    }
                    floats(&e["uv"], &v.uv, &format!("{w} uv"));
                    floats(
                        &e["uv_unnegated"],
                        &v.uv_unnegated,
                        &format!("{w} uv_unnegated"),
                    );
                }
                // the conventions' facing rule holds for every decoded triangle
                for t in &g.triangles {
                    let p: Vec<[f32; 3]> =
                        t.iter().map(|&x| g.vertices[x as usize].position).collect();
                    let n = g.vertices[t[0] as usize].normal;
                    let a = [p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]];
                    let b = [p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]];
                    let c = [
                        a[1] * b[2] - a[2] * b[1],
                        a[2] * b[0] - a[0] * b[2],
                        a[0] * b[1] - a[1] * b[0],
                    ];
                    assert!(
                        c[0] * n[0] + c[1] * n[1] + c[2] * n[2] > 0.0,
                        "{w} triangle {t:?} faces away"
                    );
                }
            }
        }
        let ea = exp["animations"].as_array().unwrap();
        assert_eq!(ea.len(), tmd.animations.len(), "{name} animations");
        for (k, (a, e)) in tmd.animations.iter().zip(ea).enumerate() {
            assert_eq!(
                e["name"].as_str(),
                Some(a.name().as_str()),
                "{name} animation {k}"
            );
        }
        assert_eq!(tmd.write().unwrap(), bytes, "{name}: byte-identical write");
    }
}

#[test]
fn open_lod_fields_point_at_their_bytes() {
    for (path, exp, data) in cases("tmd") {
        let tmd = Tmd::read(&data).unwrap();
        // The expected file gives the mesh block's offset; each LOD record starts 8
        // bytes later (lodCount, lodDistance) and holds meshCount, then shaderType.
        let lod0 = u(&exp["lod_block"], "offset") + 8;
        let field = tmd
            .open_fields()
            .into_iter()
            .find(|f| f.record == "lod 0" && f.field == "shaderType")
            .unwrap_or_else(|| panic!("{}: lod 0 shaderType is listed as open", path.display()));
        assert_eq!(field.offset, lod0 + 4, "{}", path.display());
        let stored = u32::from_le_bytes(data[field.offset as usize..][..4].try_into().unwrap());
        assert_eq!(field.value, stored.to_string());
    }
}

//! Layout freedom: any key order, any whitespace, comments, trailing commas or none,
//! and optional keys left out all read to the same model as the canonical text.

use gom::gomt::{read, write};

const CANONICAL_PARTS: &str = r#"GOMT0001
Header = {
  sourceHash = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
  converterVersion = "hand",
  validationFlags = ["bindPosePass", "weightsPass", "submeshMaterialsPass"],
  coordinateSystem = "CS_LH_YUP_METERS",
  matrixConvention = "MC_ROW_MAJOR_ROW_VECTOR_RIGHT_MUL",
}
Skeleton = {
  boneCount = 1,
  bones = [
    {
      parent = -1,
      name = "root",
      path = "root",
      bindLocal = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
    },
  ],
}
Materials = [
  { name = "m", baseColorFactor = [1, 1, 1, 1] },
]
Meshes = [
  {
    name = "tri",
    vertexFormat = ["p", "c"],
    vertices = [
      { p = [0, 0, 0], c = [255, 0, 0, 255] },
      { p = [0, 1, 0], c = [0, 255, 0, 255] },
      { p = [1, 0, 0], c = [0, 0, 255, 255] },
    ],
    indices = [
      0, 1, 2,
    ],
    submeshes = [
      { materialIndex = 0, indexStart = 0, indexCount = 3 },
    ],
    inverseBind = [],
    bounds = { aabbMin = [0, 0, 0], aabbMax = [1, 1, 0], sphereCenter = [0.5, 0.5, 0], sphereRadius = 0.7071068 },
  },
]
Animations = [
  {
    name = "still",
    duration = 0,
    sampleRate = 30,
    rootBoneIndex = -1,
    flags = [],
    tracks = [
      {
        bone = 0,
        keys = [
          { time = 0, t = [0, 0, 0], r = [0, 0, 0, 1], s = [1, 1, 1] },
        ],
      },
    ],
  },
]
"#;

/// The same document: keys shuffled, one line per table, comments, no trailing
/// commas, numbers spelled differently, optional keys (boneCount, vertexFormat,
/// inverseBind, bounds, rootBoneIndex, flags, baseColorFactor) left out, top-level
/// order changed, an unknown top-level value in between.
const FREE_FORM: &str = "GOMT0001\r\n\
# sections may come in any order\n\
Animations=[{tracks=[{keys=[{s=[1,1.0,10e-1],r=[0,0,-0,1],t=[0,0,0],time=0}],bone=0}],sampleRate=3e1,duration=0.0,name=\"still\"}]\n\
Meshes = [ { submeshes = [ { indexCount = 3, indexStart = 0, materialIndex = 0 } ],\n\
  indices = [ 0, 1, 2 ], # one triangle\n\
  vertices = [ { c = [255, 0, 0, 255], p = [0, 0, 0] }, { c = [0, 255, 0, 255], p = [0, 1, 0] },\n\
    { c = [0, 0, 255, 255], p = [1E0, 0, 0] } ], name = \"\\u0074ri\" } ]\n\
Unknown = { anything = [ \"goes\", { here = true } ] }\n\
Materials = [{name=\"m\"}]\n\
Skeleton = { bones = [ { bindLocal = [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]], path = \"root\", name = \"root\", parent = -1 } ] }\n\
Header = { matrixConvention = \"MC_ROW_MAJOR_ROW_VECTOR_RIGHT_MUL\", coordinateSystem = \"CS_LH_YUP_METERS\",\n\
  validationFlags = [\"submeshMaterialsPass\", \"weightsPass\", \"bindPosePass\"],\n\
  converterVersion = \"hand\", sourceHash = \"0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789ABCDEF\" }";

#[test]
fn free_form_text_reads_to_the_canonical_model() {
    let canonical = read(CANONICAL_PARTS).unwrap();
    let free = read(FREE_FORM).unwrap();
    assert_eq!(free, canonical);
    assert_eq!(write(&free).unwrap(), CANONICAL_PARTS);
}

#[test]
fn hand_written_canonical_text_is_what_the_writer_writes() {
    let m = read(CANONICAL_PARTS).unwrap();
    assert_eq!(write(&m).unwrap(), CANONICAL_PARTS);
    assert_eq!(
        m.meshes[0].vertices.colors.as_ref().unwrap()[2],
        [0, 0, 255, 255]
    );
    // sqrt(0.5) = 0.70710678118…; the f32 neighbours are 0.707106769… and
    // 0.707106828…; rounded up it is the latter, whose shortest text is 0.7071068.
    let r = m.meshes[0].bounds.unwrap().sphere_radius;
    assert_eq!(f64::from(r), 0.707_106_828_689_575_2);
}

#[test]
fn a_mesh_without_vertices_keeps_its_format() {
    let text = CANONICAL_PARTS
        .replace(
            "      { p = [0, 0, 0], c = [255, 0, 0, 255] },\n      { p = [0, 1, 0], c = [0, 255, 0, 255] },\n      { p = [1, 0, 0], c = [0, 0, 255, 255] },\n",
            "",
        )
        .replace("    indices = [\n      0, 1, 2,\n    ],", "    indices = [],")
        .replace(
            "    submeshes = [\n      { materialIndex = 0, indexStart = 0, indexCount = 3 },\n    ],",
            "    submeshes = [],",
        )
        .replace("    vertices = [\n    ],", "    vertices = [],")
        .replace(
            "aabbMax = [1, 1, 0], sphereCenter = [0.5, 0.5, 0], sphereRadius = 0.7071068",
            "aabbMax = [0, 0, 0], sphereCenter = [0, 0, 0], sphereRadius = 0",
        );
    let m = read(&text).unwrap();
    assert!(m.meshes[0].vertices.is_empty());
    assert!(m.meshes[0].vertices.colors.is_some());
    assert_eq!(m.meshes[0].vertices.format().bits(), 0b10_0001);
    assert_eq!(write(&m).unwrap(), text);
}

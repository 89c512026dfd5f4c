//! The README's algorithm tables match the registry: adding or changing an
//! algorithm without `make docs` fails here, with the command that fixes it.

#[test]
fn the_readme_lists_every_registered_algorithm_as_the_registry_describes_it() {
    let readme_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .join("README.md");
    let catalog = algorithms::registry::catalog();
    let current = harness::docs::readme_is_current(&readme_path, &catalog)
        .expect("README.md with the generated block's markers");
    assert!(
        current,
        "README.md's generated tables differ from the registry or algorithms/src/systems.rs: run `make docs` and commit the result"
    );
}

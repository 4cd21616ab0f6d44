/** The package version; a unit test keeps it equal to package.json's. */
export const version = "0.3.0"

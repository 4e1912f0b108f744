/// The schema the relay needs, the emulator's default: the text of `deploy/cloudkit/schema.ckdb`, which is the
/// single source of the relay's record types and fields. `EmulatorSchemaFileTests` fails when the two differ,
/// and `RecordSchemaFileTests` when the record codecs write a field this schema lacks.
extension ContainerSchema {
    /// `deploy/cloudkit/schema.ckdb`, as cktool's `export-schema` writes it.
    package static let relayText = """
        DEFINE SCHEMA

            RECORD TYPE Account (
                "___createTime" TIMESTAMP,
                "___createdBy"  REFERENCE,
                "___etag"       STRING,
                "___modTime"    TIMESTAMP,
                "___modifiedBy" REFERENCE,
                "___recordID"   REFERENCE,
                canAddTodos     INT64,
                changedAt       TIMESTAMP,
                defaultTime     STRING,
                locale          STRING,
                quietHoursEnd   STRING,
                quietHoursStart STRING,
                subscribedUntil TIMESTAMP,
                timeZone        STRING,
                trialStartedAt  TIMESTAMP,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );

            RECORD TYPE Occurrence (
                "___createTime" TIMESTAMP,
                "___createdBy"  REFERENCE,
                "___etag"       STRING,
                "___modTime"    TIMESTAMP,
                "___modifiedBy" REFERENCE,
                "___recordID"   REFERENCE,
                changedAt       TIMESTAMP,
                date            STRING SORTABLE,
                snoozedUntil    TIMESTAMP,
                state           STRING,
                todoId          STRING QUERYABLE,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );

            RECORD TYPE Todo (
                "___createTime" TIMESTAMP,
                "___createdBy"  REFERENCE,
                "___etag"       STRING,
                "___modTime"    TIMESTAMP,
                "___modifiedBy" REFERENCE,
                "___recordID"   REFERENCE QUERYABLE,
                changedAt       TIMESTAMP,
                completedAt     TIMESTAMP,
                createdAt       TIMESTAMP,
                deletedAt       TIMESTAMP SORTABLE,
                dueAt           TIMESTAMP,
                notes           STRING,
                repeatRule      STRING,
                snoozedUntil    TIMESTAMP,
                sound           STRING,
                source          STRING,
                status          STRING QUERYABLE,
                timeZone        STRING,
                title           STRING,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );

            RECORD TYPE Users (
                "___createTime" TIMESTAMP,
                "___createdBy"  REFERENCE,
                "___etag"       STRING,
                "___modTime"    TIMESTAMP,
                "___modifiedBy" REFERENCE,
                "___recordID"   REFERENCE,
                roles           LIST<INT64>,
                GRANT WRITE TO "_creator",
                GRANT READ TO "_world"
            );
        """

    /// The relay's schema, parsed (the text is checked by a test, so this cannot fail).
    package static let relay: ContainerSchema = {
        do {
            return try ContainerSchema(parsing: relayText)
        } catch {
            fatalError("the embedded relay schema does not parse: \(error)")
        }
    }()
}

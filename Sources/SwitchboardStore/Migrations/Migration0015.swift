/// An upload's commit in one statement (issue 33, docs/attachments.md,
/// "What an upload costs"): `switchboard_commit_attachment` locks the
/// session's row, checks the quota and that the chunks (the thumbnail's too)
/// add up, stores the
/// last chunk it is given and inserts the `attachments` row, in one call
/// and one autocommitted transaction that waits for the disk whatever the
/// connection's default (`synchronous_commit` set locally), where BEGIN, SET
/// LOCAL, four statements and COMMIT each made a round trip and were parsed
/// and planned anew. An upload of one chunk (up to 256 KiB) now makes two
/// round trips in all, not nine.
///
/// Repeatable: a call that finds the row already there with the same
/// session, size and digest returns it, so the gateway may run it again when
/// the connection broke before it heard whether the first call committed.
/// The refusals carry SQLSTATEs of their own: `SBA01` no such session (or
/// soft-deleted), `SBA02` over the quota, `SBA03` the stored chunks do not
/// add up.
///
/// SECURITY INVOKER: a role confined by row-level security commits only
/// what its policies let it.
enum Migration0015 {
    static let migration = Migration(version: 15, name: "attachment_commit", sql: sql, down: down)

    private static let sql =
        #"""
        CREATE FUNCTION switchboard_commit_attachment(
            p_id uuid, p_workspace uuid, p_session uuid, p_role text, p_uploader text, p_filename text,
            p_type text, p_size bigint, p_sha256 text, p_width integer, p_height integer, p_storage text,
            p_thumbnail_size bigint, p_quota bigint, p_chunks integer, p_tail bytea)
        RETURNS attachments LANGUAGE plpgsql AS $$
        DECLARE
            v_row attachments;
            v_live boolean;
            v_stored bigint;
            v_count integer;
            v_bytes bigint;
        BEGIN
            -- The upload is acknowledged once this commits: it waits for the disk.
            PERFORM set_config('synchronous_commit', 'on', true);
            SELECT * INTO v_row FROM attachments WHERE id = p_id;
            IF FOUND THEN
                IF v_row.session_id = p_session AND v_row.size = p_size AND v_row.sha256 = p_sha256 THEN
                    RETURN v_row;
                END IF;
                RAISE EXCEPTION 'attachment % exists already', p_id USING ERRCODE = 'unique_violation';
            END IF;
            -- The session row's lock serializes the commits of one session, so two
            -- uploads cannot both fit a quota that holds only one of them.
            SELECT deleted_at IS NULL INTO v_live FROM chat_sessions
             WHERE id = p_session AND workspace_id = p_workspace FOR UPDATE;
            IF v_live IS NOT TRUE THEN
                RAISE EXCEPTION 'no such session %', p_session USING ERRCODE = 'SBA01';
            END IF;
            SELECT coalesce(sum(size), 0) INTO v_stored FROM attachments WHERE session_id = p_session;
            IF v_stored + p_size > p_quota THEN
                RAISE EXCEPTION 'session % would hold % bytes of attachments, more than %',
                    p_session, v_stored + p_size, p_quota USING ERRCODE = 'SBA02';
            END IF;
            IF p_chunks IS NOT NULL THEN
                IF p_tail IS NOT NULL THEN
                    INSERT INTO attachment_chunks (attachment_id, variant, n, data)
                    VALUES (p_id, 0, p_chunks - 1, p_tail) ON CONFLICT DO NOTHING;
                END IF;
                -- FOR SHARE: an orphan purge cannot delete these chunks under a row about to commit.
                SELECT count(*), coalesce(sum(octet_length(data)), 0) INTO v_count, v_bytes FROM (
                    SELECT data FROM attachment_chunks WHERE attachment_id = p_id AND variant = 0 FOR SHARE) c;
                IF v_count <> p_chunks OR v_bytes <> p_size THEN
                    RAISE EXCEPTION 'attachment %: % stored chunks of % bytes, not % of %',
                        p_id, v_count, v_bytes, p_chunks, p_size USING ERRCODE = 'SBA03';
                END IF;
                IF p_thumbnail_size IS NOT NULL THEN
                    SELECT coalesce(sum(octet_length(data)), 0) INTO v_bytes FROM (
                        SELECT data FROM attachment_chunks WHERE attachment_id = p_id AND variant = 1 FOR SHARE) c;
                    IF v_bytes <> p_thumbnail_size THEN
                        RAISE EXCEPTION 'attachment %: a thumbnail of % stored bytes, not %',
                            p_id, v_bytes, p_thumbnail_size USING ERRCODE = 'SBA03';
                    END IF;
                END IF;
            END IF;
            INSERT INTO attachments (id, workspace_id, session_id, uploader_role, uploader_id, filename,
                                     content_type, size, sha256, width, height, storage, thumbnail_size)
            VALUES (p_id, p_workspace, p_session, p_role, p_uploader, p_filename, p_type, p_size, p_sha256,
                    p_width, p_height, p_storage, p_thumbnail_size)
            RETURNING * INTO v_row;
            RETURN v_row;
        END $$;

        """#

    private static let down =
        #"""
        DROP FUNCTION switchboard_commit_attachment(
            uuid, uuid, uuid, text, text, text, text, bigint, text, integer, integer, text, bigint, bigint, integer,
            bytea);

        """#
}
